// Ensemble members a quorum grace cut short: their node runs end as failed with quorum_met, and a
// member the cut kept from starting gets a run saying so, so the quorum has one run per member.
import { findNodeRunByKey, insertNodeRun, updateNodeRun } from '../store/node-runs-repository';
import type { RecordCutMembersInput } from '../contract';
import type { ActivityDeps } from './deps';
import { loadScene } from './node-scene';
import { newRunOf, subjectOf } from './run-record';

export function quorumCutActivities(deps: ActivityDeps) {
  /** Idempotent: a run already ended keeps its outcome, so a second try records nothing new. */
  async function recordCutMembers(input: RecordCutMembersInput): Promise<string[]> {
    const ids: string[] = [];
    for (const member of input.members) ids.push(await recordCut(input, member));
    return ids;
  }

  async function recordCut(input: RecordCutMembersInput, member: RecordCutMembersInput['members'][number]): Promise<string> {
    const met = `quorum was met at ${input.quorumMetAt} (min_pass ${input.minPass})`;
    const grace = input.graceMinutes === 0 ? 'quorum_grace_minutes is 0' : `quorum_grace_minutes (${input.graceMinutes}) passed`;
    const ended = { status: 'fail', outcome: 'fail', failure_kind: 'quorum_met', pgid: null } as const;
    const started = await findNodeRunByKey(deps.db, member.runKey);
    if (started) {
      if (started.status === 'pass' || started.status === 'fail') return started.id;
      await updateNodeRun(deps.db, started.id, {
        ...ended,
        reason: `Cut short: ${met} and ${grace} while it still ran; it was cancelled and its process group killed.`,
        ended_at: started.ended_at ?? new Date().toISOString(),
      });
      return started.id;
    }
    const scene = await loadScene(deps, { ...input, nodeName: member.nodeName, previousRunId: null });
    const run = await insertNodeRun(deps.db, {
      ...newRunOf(subjectOf(scene), { ...input, runKey: member.runKey }),
      ...ended,
      reason: `Not started: ${met} and ${grace} before its turn came.`,
      ended_at: new Date().toISOString(),
    });
    return run.id;
  }

  return { recordCutMembers };
}
