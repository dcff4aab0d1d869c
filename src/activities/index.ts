// Every activity of the worker, bound to the process's store and settings.
import { bookkeepingActivities } from './bookkeeping';
import type { LoopActivities } from '../contract';
import type { ActivityDeps } from './deps';
import { eventHookActivities } from './event-hooks';
import { nonRetryableWhenDeterministic } from './failures';
import { nodeActivities } from './node-activities';
import { quorumCutActivities } from './quorum-cuts';
import { memberWorktreeActivities } from './member-worktree-activities';
import { sandboxActivities } from './sandbox-activities';
import { scheduleActivities } from './schedule-activities';
import { specStartActivities } from './spec-start';

export function createActivities(deps: ActivityDeps): LoopActivities {
  const activities: LoopActivities = {
    ...bookkeepingActivities(deps),
    ...nodeActivities(deps),
    ...quorumCutActivities(deps),
    ...sandboxActivities(deps),
    ...memberWorktreeActivities(deps),
    ...eventHookActivities(deps),
    ...scheduleActivities(deps),
    ...specStartActivities(deps),
    resumeLoop: ({ loopId }) => deps.resumeLoop(loopId),
  };
  const entries = Object.entries(activities) as [string, (...args: unknown[]) => Promise<unknown>][];
  return Object.fromEntries(
    entries.map(([name, activity]) => [name, nonRetryableWhenDeterministic(name, activity)]),
  ) as unknown as LoopActivities;
}
