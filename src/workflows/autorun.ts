// Started by a loop's one-shot autorun Schedule: resumes the loop the way `canopy loop continue` would,
// once no other loop's run holds its workdir.
import { patched, proxyActivities, upsertMemo } from '@temporalio/workflow';
import type { LoopActivities } from '../contract';
import { PATCHES } from './patches';
import { untilWorkdirFree } from './workdir-wait';

const { resumeLoop } = proxyActivities<LoopActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5 },
});

export async function autorunWorkflow(input: { loopId: string }): Promise<string> {
  if (!patched(PATCHES.workdirWaits)) return (await resumeLoop(input)) as string;
  const resumed = await untilWorkdirFree(() => resumeLoop({ ...input, waitForWorkdir: true }));
  upsertMemo({ outcome: 'resumed', detail: resumed });
  return resumed;
}
