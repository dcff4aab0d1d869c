// The no-progress watchdog at a round's end, for a loop whose head has max_stalled_rounds: a round
// that ended on a failure is read on the workdir's host (one activity) and compared with the round
// before; rounds that repeat for as long as the limit block the loop with no_progress, and the
// continue that lifts the blocker starts the count again. A loop without one schedules nothing here.
import { patched } from '@temporalio/workflow';
import type { NodeOutcome } from '../contract';
import { roundAt } from '../graph/rounds';
import { clearStall, noProgressReason, reachedLimit, recordRoundEnd } from '../graph/stalls';
import { checkpoint } from './checkpoint';
import { PATCHES } from './patches';
import type { LoopRun, SpecWalk } from './run-state';

/** Keeps the failure a round's end is judged by: the last node that failed in the round. */
export function noteFailure(walk: SpecWalk, vertex: string, outcome: NodeOutcome): void {
  if (outcome.outcome === 'fail') walk.lastFailure = { vertex, nodeRunId: outcome.nodeRunId };
}

/** At a loopback into `head`, before its next round: counts the round that ended, and blocks once the loop's limit is reached. */
export async function watchRoundEnd(run: LoopRun, walk: SpecWalk, head: string): Promise<void> {
  const failure = walk.lastFailure;
  walk.lastFailure = null;
  const limits = walk.graph.topology.stallLimits;
  if (!limits || !Object.hasOwn(limits, head) || !patched(PATCHES.stalledRounds)) return;
  if (!failure) {
    walk.stalls = clearStall(walk.stalls, head);
    return;
  }
  const fingerprint = await run.activities
    .workdirReads(`the end of round ${roundAt(walk.rounds, head)} of ${head}`)
    .fingerprintRound({ loopId: run.loopId, workdir: run.workdir, nodeRunId: failure.nodeRunId });
  walk.stalls = recordRoundEnd(walk.stalls, head, { ...fingerprint, node: failure.vertex });
  const stall = reachedLimit(walk.stalls, head, limits[head]);
  if (!stall) return;
  run.live.blockedReason = noProgressReason(head, stall);
  // Retry and skip alike go on into the next round.
  await checkpoint(run, failure.vertex);
  walk.stalls = clearStall(walk.stalls, head);
}
