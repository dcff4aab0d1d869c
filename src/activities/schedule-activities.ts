// What a loop's recurring Schedule runs at each firing: start the loop's run, then wait for it to end.
import { Context } from '@temporalio/activity';
import type { LoopActivities } from '../contract';
import type { ActivityDeps } from './deps';

export function scheduleActivities(deps: ActivityDeps): Pick<LoopActivities, 'startScheduledRun' | 'awaitLoopRunEnd'> {
  return {
    startScheduledRun: ({ loopId, queueId, waitForWorkdir }) => deps.startScheduledRun(loopId, queueId, waitForWorkdir),
    async awaitLoopRunEnd({ workflowId, runId, forSeconds }) {
      const activity = Context.current();
      const waited = AbortSignal.timeout(forSeconds * 1000);
      try {
        return await deps.loopRunEnd({ workflowId, runId }, AbortSignal.any([activity.cancellationSignal, waited]));
      } catch (error) {
        if (waited.aborted && !activity.cancellationSignal.aborted) return null;
        throw error;
      }
    },
  };
}
