// Running an ensemble's members side by side, a few at a time. With a quorum grace, once min_pass
// members passed no other member starts, and the ones running get that long (a workflow timer) to
// finish; then those still running are cancelled, which kills their process groups.
import { CancellationScope, condition } from '@temporalio/workflow';
import type { NodeOutcome } from '../contract';

export interface GracedMembers {
  members: string[];
  concurrency: number;
  minPass: number;
  /** quorum_grace_minutes; 0 cuts the members still running as soon as the quorum is met. */
  graceMinutes: number;
  /** Runs one member's activity (cancelled when the grace cuts it short). */
  run: (member: string, index: number) => Promise<NodeOutcome>;
  /** Names the grace timer in the Temporal UI. */
  graceSummary: string;
}

export interface GracedMembersEnd {
  /** Each member's outcome in member order; null for a member cut short, started or not. */
  outcomes: (NodeOutcome | null)[];
  /** Workflow time (ISO-8601) at which the min_pass-th member passed; null when the quorum was not met. */
  quorumMetAt: string | null;
}

export async function runGracedMembers(ensemble: GracedMembers): Promise<GracedMembersEnd> {
  const cut = new CancellationScope();
  const outcomes = new Array<NodeOutcome | null>(ensemble.members.length).fill(null);
  let passed = 0;
  let quorumMetAt: string | null = null;
  let cutting = false;
  let ended = false;

  const lanes = mapWithConcurrency(
    ensemble.members,
    ensemble.concurrency,
    async (member, index) => {
      try {
        const outcome = await cut.run(() => ensemble.run(member, index));
        outcomes[index] = outcome;
        if (outcome.outcome === 'pass' && ++passed === ensemble.minPass) quorumMetAt = new Date().toISOString();
      } catch (error) {
        // Once cutting, however a member's activity ended short of an outcome, the cut ended it.
        if (!cutting) throw error;
      }
    },
    () => quorumMetAt === null,
  ).finally(() => {
    ended = true;
  });

  // Shielded from a stop, which cancels the members instead: the run then ends when their
  // activities have killed their processes, as it does for any node, not as soon as this wait ends.
  const grace = CancellationScope.nonCancellable(async () => {
    await condition(() => ended || quorumMetAt !== null);
    if (ended) return;
    const endedInTime =
      ensemble.graceMinutes > 0 && (await condition(() => ended, ensemble.graceMinutes * 60_000, { summary: ensemble.graceSummary }));
    if (endedInTime) return;
    cutting = true;
    cut.cancel();
  });

  await Promise.all([lanes, grace]);
  return { outcomes, quorumMetAt };
}

/** Runs `work` over `items`, at most `limit` at once, starting each next item only while `startMore()` holds. */
export async function mapWithConcurrency<T, R>(
  items: T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
  startMore: () => boolean = () => true,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length && startMore()) {
      const index = next++;
      results[index] = await work(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
