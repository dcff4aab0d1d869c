// The run's checkpoint between nodes: where a pause or a blocker takes hold, and a continue lifts it.
import { condition, patched } from '@temporalio/workflow';
import type { ContinueStrategy, SetLoopStatusInput } from '../contract';
import { fireHooks } from './hooks';
import { PATCHES } from './patches';
import type { LoopRun } from './run-state';
import { tell } from './story';

/**
 * Honours a pause or a blocker at `node` (or at a spec's claim, with null): the loop waits for a
 * continue. Returns how to go on when a blocker was lifted (retry or skip), null otherwise.
 */
export async function checkpoint(run: LoopRun, node: string | null): Promise<ContinueStrategy | null> {
  const { live, requests, loopId } = run;
  const blocked = live.blockedReason !== null;
  if (!blocked && !requests.pause) return null;
  live.status = blocked ? 'blocked' : 'paused';
  tell(live, true);
  requests.continueWith = null;
  const told = blocked && patched(PATCHES.notifyBlockers) && { blocker: blockerOf(run, node) };
  const entered = await run.activities.bookkeeping(`loop ${live.status}`).setLoopStatus({ loopId, status: live.status, ...told });
  if (blocked) {
    run.blocks++;
    if (entered.hasHooks) {
      const facts = { blocker: live.blockedReason ?? '', node: node ?? '', specId: live.specId, specName: live.specName };
      await fireHooks(run, 'on_blocked', String(run.blocks), facts);
    }
  }
  await condition(() => requests.continueWith !== null);
  const strategy: ContinueStrategy = requests.continueWith ?? 'retry';
  requests.pause = false;
  live.blockedReason = null;
  live.status = 'running';
  tell(live, true);
  await run.activities.bookkeeping('loop running again').setLoopStatus({ loopId, status: 'running' });
  return blocked ? strategy : null;
}

function blockerOf(run: LoopRun, node: string | null): NonNullable<SetLoopStatusInput['blocker']> {
  const { live, workflowId } = run;
  return { reason: live.blockedReason ?? '', node, specId: live.specId, specName: live.specName, workflowId };
}
