// Started by a loop's one-shot autorun Schedule: resumes the loop the way `canopy loop continue` would.
import { proxyActivities } from '@temporalio/workflow';
import type { LoopActivities } from '../contract';

const { resumeLoop } = proxyActivities<LoopActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5 },
});

export async function autorunWorkflow(input: { loopId: string }): Promise<string> {
  return resumeLoop(input);
}
