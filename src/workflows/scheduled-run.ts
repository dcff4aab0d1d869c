// Started by a loop's recurring Schedule at each firing: starts the loop's run unless one is open,
// waiting first while another loop's run holds its workdir, then stays open until that run ends, so
// the Schedule's overlap policy skips the firings meanwhile.
import { patched, proxyActivities, upsertMemo } from '@temporalio/workflow';
import type { LoopActivities, ScheduledRunInput, ScheduledStart } from '../contract';
import { PATCHES } from './patches';
import { untilWorkdirFree } from './workdir-wait';

/** The longest one wait for the run lasts before the workflow asks again (a run may go on for days). */
const WAIT_SECONDS = 3600;

const { startScheduledRun } = proxyActivities<LoopActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5 },
});

const { awaitLoopRunEnd } = proxyActivities<LoopActivities>({
  startToCloseTimeout: `${WAIT_SECONDS + 60} seconds`,
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 10 },
});

export async function scheduledRunWorkflow(input: ScheduledRunInput): Promise<string> {
  const firing = patched(PATCHES.workdirWaits)
    ? await untilWorkdirFree(() => startScheduledRun({ ...input, waitForWorkdir: true }))
    : ((await startScheduledRun(input)) as ScheduledStart);
  // In the memo, so `loop info` reads the outcome while this workflow still waits, without a worker.
  upsertMemo({ outcome: firing.outcome, detail: firing.detail });
  if (firing.outcome === 'skipped') return `skipped: ${firing.detail}`;
  let ended: string | null = null;
  while (ended === null) ended = await awaitLoopRunEnd({ workflowId: firing.workflowId, runId: firing.runId, forSeconds: WAIT_SECONDS });
  return `${firing.detail}; ${ended}`;
}
