// The node-run record of one execution: opened once, reused by infra retries, closed with the outcome.
import { CancelledFailure, Context } from '@temporalio/activity';
import type { HumanFeedback, NodeRun } from '../domain/node-run';
import { excerpt, outputText } from '../graph/feedback';
import { recordNodeRunMetrics } from './node-run-metrics';
import { redact } from '../graph/redact';
import type { FailureKind } from '../domain/node-run';
import type { HookEvent } from '../domain/hooks';
import { findNodeRunByKey, insertNodeRun, updateNodeRun, type NodeRunChanges } from '../store/node-runs-repository';
import { NODE_MAX_ATTEMPTS, type NodeOutcome } from '../contract';
import { killProcessGroup } from '../process/process-group';
import { removeRunDirectory, runDirectoryPath } from '../process/run-directory';
import { findEarlierProcess, type ProcessRecord } from '../process/supervision';
import type { ActivityDeps } from './deps';
import type { ExecutionResult } from './execution';
import { nodeFailure } from './failures';
import type { NodeScene } from './node-scene';

export interface OpenRunInput {
  runKey: string;
  workflowId: string;
  round: number;
  /** Temporal's attempt number: above 1 only when a worker died mid-execution. */
  activityAttempt: number;
  /** The workdir's HEAD before the node ran, when it is judged. */
  headBefore?: string | null;
  /** The remarks a person sent the loop that this run is given. */
  humanFeedback?: HumanFeedback[];
}

/** Who the record is about: a graph node in a spec run, or one of a loop's event hooks. */
export interface RunSubject {
  loopId: string;
  specId: string | null;
  nodeId: string | null;
  nodeName: string;
  kind: string;
  /** The event and list index of a hook. */
  hook?: { event: HookEvent; index: number };
}

export function subjectOf(scene: NodeScene): RunSubject {
  return { loopId: scene.loop.id, specId: scene.spec.id, nodeId: scene.node.id, nodeName: scene.node.name, kind: scene.node.kind };
}

/** The fields a new node run takes from what it is about and which execution it records. */
export function newRunOf(subject: RunSubject, execution: Pick<OpenRunInput, 'runKey' | 'workflowId' | 'round'>) {
  return {
    run_key: execution.runKey,
    loop_id: subject.loopId,
    spec_id: subject.specId,
    node_id: subject.nodeId,
    node_name: subject.nodeName,
    kind: subject.kind,
    hook_event: subject.hook?.event ?? null,
    hook_index: subject.hook?.index ?? null,
    workflow_id: execution.workflowId,
    round: execution.round,
  };
}

/** A node run as an attempt opens it, with the process an earlier attempt left running or finished, if any. */
export interface OpenedRun {
  run: NodeRun;
  /** The process to follow instead of starting one: the earlier attempt's, still running or ended with its status recorded. */
  adopted: ProcessRecord | null;
}

/**
 * Which run of its node an execution is: the workflow runs a node that failed for infrastructure
 * reasons again under its run key with `:infra-<n>` added, and names it "infra attempt <n>".
 */
function infraAttemptOf(runKey: string): number {
  return Number(/:infra-(\d+)$/.exec(runKey)?.[1] ?? 1);
}

/**
 * A retry after a lost worker finds the record of the attempt it replaces and carries on in it, so
 * each execution is recorded once: it adopts that attempt's process when it still runs (or has
 * recorded how it ended); otherwise it kills what is left of it and starts the node again.
 */
export async function openNodeRun(deps: ActivityDeps, subject: RunSubject, input: OpenRunInput): Promise<OpenedRun> {
  // Run keys are unique per scheduled activity, so only a retry can find an earlier record.
  const earlier = input.activityAttempt > 1 ? await findNodeRunByKey(deps.db, input.runKey) : undefined;
  if (!earlier) {
    const run = await insertNodeRun(deps.db, {
      ...newRunOf(subject, input),
      infra_attempt: infraAttemptOf(input.runKey),
      activity_attempt: input.activityAttempt,
      head_before: input.headBefore ?? null,
      executed_host: deps.hostId,
      human_feedback: input.humanFeedback ?? null,
    });
    return { run, adopted: null };
  }
  const left = findEarlierProcess(runDirectoryPath(deps.home, earlier.id));
  if (left.state === 'running' || left.state === 'exited') {
    const recovery = `activity attempt ${input.activityAttempt} adopted process ${left.record.pid} of activity attempt ${earlier.activity_attempt}, whose worker was lost (${left.state === 'running' ? 'it was still running' : 'it had ended and recorded its exit status'})`;
    const run = (await updateNodeRun(deps.db, earlier.id, {
      activity_attempt: input.activityAttempt,
      executed_host: deps.hostId,
      recovery,
    }))!;
    return { run, adopted: left.record };
  }
  // A process group id means nothing on another machine, where killing it would hit a stranger.
  const ranHere = (earlier.executed_host ?? deps.hostId) === deps.hostId;
  if (earlier.pgid !== null && ranHere) await killProcessGroup(earlier.pgid);
  removeRunDirectory(deps.home, earlier.id);
  const why = left.state === 'gone' ? left.reason : 'it had not started a process that outlived its worker';
  const run = (await updateNodeRun(deps.db, earlier.id, {
    ...restartedAttempt(earlier, input.activityAttempt),
    head_before: input.headBefore ?? null,
    executed_host: deps.hostId,
    recovery: `activity attempt ${input.activityAttempt} ran the node again after activity attempt ${earlier.activity_attempt}'s worker was lost: ${why}`,
  }))!;
  return { run, adopted: null };
}

/**
 * A retry starts clean: the dead attempt's report, output and token move to the attempt history,
 * so only the attempt that finishes decides the outcome.
 */
function restartedAttempt(earlier: NodeRun, activityAttempt: number): NodeRunChanges {
  const { infra_attempt, activity_attempt, stdout, stderr, exit_code, reported_status, reported_output, status } = earlier;
  return {
    attempts: [
      ...earlier.attempts,
      { infra_attempt, activity_attempt, status, stdout, stderr, exit_code, reported_status, reported_output },
    ],
    activity_attempt: activityAttempt,
    status: 'running',
    pgid: null,
    stdout: '',
    stderr: '',
    exit_code: null,
    reported_status: null,
    reported_output: null,
    outcome: null,
    failure_kind: null,
    reason: null,
    head_after: null,
    ended_at: null,
    run_token_hash: null,
  };
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
  /** What git reported uncommitted in the workdir afterwards, for the nodes that work in the tree. */
  dirtyPaths?: string[] | null;
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
    dirty_paths: end.dirtyPaths,
    unreported: end.unreported,
    pgid: null,
    ended_at: new Date().toISOString(),
  }))!;
  recordNodeRunMetrics(closed);
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

/** Records the run of a cancelled activity, whose process group was killed, and passes the cancellation on to Temporal. */
export async function cancelNodeRun(
  deps: ActivityDeps,
  run: NodeRun,
  end: { input: string; stdout: string; stderr: string },
): Promise<never> {
  await updateNodeRun(deps.db, run.id, { status: 'cancelled', ...end, pgid: null, ended_at: new Date().toISOString() });
  throw new CancelledFailure(`Run ${run.node_name} cancelled; its process group was killed.`);
}

/**
 * Ends the run of a process's execution: a cancelled one is recorded as cancelled and the
 * cancellation passed on; any other is closed with its result, amended by what `after` reads once
 * the process has ended uncancelled (HEAD, the tree, a verdict of its own).
 */
export async function closeExecution(
  deps: ActivityDeps,
  run: NodeRun,
  result: ExecutionResult,
  input: string,
  after: () => Promise<Partial<RunEnd>> = () => Promise.resolve({}),
): Promise<NodeOutcome> {
  if (result.cancelled) await cancelNodeRun(deps, run, { input, stdout: result.stdout, stderr: result.stderr });
  return closeNodeRun(deps, run, { ...result, input, headAfter: null, committedHead: null, ...(await after()) });
}

/**
 * How a node run's work ends when it throws: a deterministic error, or a transient one on the last
 * attempt, fails the run with the reason instead of reaching Temporal's retries, so nothing is
 * retried forever or silently; any other error is rethrown for the next attempt.
 */
export function failOrRethrow(deps: ActivityDeps, run: NodeRun): (error: unknown) => Promise<NodeOutcome> {
  return (error) => {
    const failure = nodeFailure(error, Context.current().info.attempt, NODE_MAX_ATTEMPTS);
    if (!failure) throw error;
    return failNodeRun(deps, run, failure);
  };
}

/** Ends the run as a node failure that no retry could have avoided (or that retries did not). */
export function failNodeRun(deps: ActivityDeps, run: NodeRun, failure: { kind: FailureKind; reason: string }): Promise<NodeOutcome> {
  return closeNodeRun(deps, run, {
    verdict: { outcome: 'fail', failureKind: failure.kind, reason: failure.reason },
    input: null,
    stdout: '',
    stderr: failure.reason,
    exitCode: null,
    headAfter: null,
    committedHead: null,
    unreported: true,
  });
}
