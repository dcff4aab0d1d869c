// The node-run record of one execution: opened once, reused by infra retries, closed with the outcome.
import type { NodeRun } from '../domain/node-run';
import { excerpt, outputText } from '../graph/feedback';
import { redact } from '../graph/redact';
import type { FailureKind } from '../domain/node-run';
import { findNodeRunByKey, insertNodeRun, updateNodeRun } from '../store/node-runs-repository';
import type { NodeOutcome } from '../workflows/shared';
import type { ActivityDeps } from './deps';
import type { NodeScene } from './node-scene';
import { killProcessGroup } from './process-group';

export interface OpenRunInput {
  runKey: string;
  workflowId: string;
  round: number;
  /** Temporal's attempt number: above 1 only when a worker died mid-execution. */
  infraAttempt: number;
  /** The workdir's HEAD before the node ran, when it is judged. */
  headBefore?: string | null;
}

/** Who the record is about: a graph node in a spec run, or a loop's completion hook. */
export interface RunSubject {
  loopId: string;
  specId: string | null;
  nodeId: string | null;
  nodeName: string;
  kind: string;
}

export function subjectOf(scene: NodeScene): RunSubject {
  return { loopId: scene.loop.id, specId: scene.spec.id, nodeId: scene.node.id, nodeName: scene.node.name, kind: scene.node.kind };
}

/**
 * A retry after a worker crash finds the record of the attempt it replaces: it kills the process
 * group that attempt left behind and carries on in the same record, so each execution is recorded once.
 */
export async function openNodeRun(deps: ActivityDeps, subject: RunSubject, input: OpenRunInput): Promise<NodeRun> {
  // Run keys are unique per scheduled activity, so only a retry can find an earlier record.
  const earlier = input.infraAttempt > 1 ? await findNodeRunByKey(deps.db, input.runKey) : undefined;
  if (earlier) {
    if (earlier.pgid !== null) await killProcessGroup(earlier.pgid);
    return (await updateNodeRun(deps.db, earlier.id, {
      infra_attempt: input.infraAttempt,
      status: 'running',
      pgid: null,
      head_before: input.headBefore ?? null,
    }))!;
  }
  return insertNodeRun(deps.db, {
    run_key: input.runKey,
    loop_id: subject.loopId,
    spec_id: subject.specId,
    node_id: subject.nodeId,
    node_name: subject.nodeName,
    kind: subject.kind,
    workflow_id: input.workflowId,
    round: input.round,
    infra_attempt: input.infraAttempt,
    head_before: input.headBefore ?? null,
  });
}

export interface RunEnd {
  /** pass, fail, or a router's label. */
  verdict: { outcome: string; failureKind: FailureKind | null; reason: string | null };
  /** What the node was given, when not on record yet. */
  input: string | null;
  stdout: string;
  stderr: string;
  exitCode: number | null;
  headAfter: string | null;
  committedHead: string | null;
  unreported: boolean;
}

export async function closeNodeRun(deps: ActivityDeps, run: NodeRun, end: RunEnd): Promise<NodeOutcome> {
  const { verdict } = end;
  const closed = (await updateNodeRun(deps.db, run.id, {
    status: verdict.outcome === 'fail' ? 'fail' : 'pass',
    outcome: verdict.outcome,
    failure_kind: verdict.failureKind,
    reason: verdict.reason,
    ...(end.input === null ? {} : { input: end.input }),
    stdout: end.stdout,
    stderr: end.stderr,
    exit_code: end.exitCode,
    head_after: end.headAfter,
    unreported: end.unreported,
    pgid: null,
    ended_at: new Date().toISOString(),
  }))!;
  // The outcome goes into Temporal's history, which anyone with the Temporal UI reads: only
  // redacted text leaves the activity. The store keeps the raw output; reads redact it.
  return {
    nodeRunId: run.id,
    outcome: verdict.outcome,
    failureKind: verdict.failureKind,
    reason: verdict.reason && redact(verdict.reason),
    excerpt: excerpt(outputText(closed)),
    committedHead: end.committedHead,
  };
}
