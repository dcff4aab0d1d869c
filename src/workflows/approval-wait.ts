// An approval node: the walk records it waiting and stands still, holding no activity, process or
// worker slot, until the decide update (or the timer of its timeout_minutes) decides it.
import { condition, patched } from '@temporalio/workflow';
import type { ApprovalDecision, NodeOutcome, WaitingApproval } from '../contract';
import type { Vertex } from '../graph/topology';
import type { ApprovalConfig } from '../node-kinds/approval';
import { PATCHES } from './patches';
import type { DecidedApproval, ExecutionBase, LoopRun, SpecWalk } from './run-state';
import { tell } from './story';

const MINUTE_MS = 60_000;

export async function awaitApproval(
  run: LoopRun,
  _walk: SpecWalk,
  vertex: Vertex & { kind: 'approval' },
  base: ExecutionBase,
  summary: string,
): Promise<NodeOutcome> {
  // No run recorded before this patch reached an approval; the marker names the era of those that did.
  patched(PATCHES.approvalNodes);
  const config = (vertex.config ?? {}) as ApprovalConfig;
  const waitMs = config.timeout_minutes === undefined ? undefined : config.timeout_minutes * MINUTE_MS;
  const deadline = waitMs === undefined ? null : new Date(Date.now() + waitMs).toISOString();
  const node = { kind: 'approval' as const, config: vertex.config ?? {} };
  const { live, requests } = run;
  requests.decision = null;
  // Taken before the approval is opened: a decision can reach the run in the workflow task that brings the
  // open's result, and its validator runs before the walk resumes.
  live.approval = { node: vertex.name, deadline };
  const { nodeRunId } = await run.activities
    .workdirReads(`${summary}: ask for approval`)
    .openApproval({ ...base, nodeName: vertex.name, judgeCommitRights: false, node, deadline });

  live.status = 'waiting';
  tell(live, true);
  const decided = () => requests.decision !== null;
  const decidedInTime = waitMs === undefined ? (await condition(decided), true) : await condition(decided, waitMs);
  const decision: DecidedApproval = decidedInTime
    ? requests.decision!
    : { node: vertex.name, decision: config.on_timeout ?? 'reject', comment: null, by: 'timeout', at: new Date().toISOString() };
  requests.decision = null;
  live.approval = null;
  live.status = 'running';
  tell(live, true);
  return run.activities
    .bookkeeping(`${vertex.name}: ${decision.decision === 'approve' ? 'approved' : 'rejected'} by ${decision.by}`)
    .closeApproval({
      loopId: run.loopId,
      nodeRunId,
      decision: decision.decision,
      by: decision.by,
      comment: decision.comment,
      decidedAt: decision.at,
    });
}

/** Why a decision cannot be taken now (thrown, so the update is refused and nothing changes), or nothing. */
export function refuseDecision(
  waiting: WaitingApproval | null | undefined,
  decided: DecidedApproval | null,
  decision: ApprovalDecision,
): void {
  if (!waiting) throw new Error('the loop waits at no approval now');
  if (decision.node !== waiting.node) throw new Error(`the loop waits at approval '${waiting.node}', not '${decision.node}'`);
  if (decided)
    throw new Error(`approval '${waiting.node}' was already ${decided.decision === 'approve' ? 'approved' : 'rejected'} by ${decided.by}`);
  if (decision.decision === 'reject' && !decision.comment?.trim())
    throw new Error('a rejection needs a comment: it is what the next node is told');
}
