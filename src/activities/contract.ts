// The activities the loop-run workflow calls: their inputs and results, shared by both sides.
import type { LoopStatus } from '../domain/loop';
import type { FailureKind } from '../domain/node-run';
import type { Topology } from '../graph/topology';
import type { NodeOutcome } from '../workflows/shared';

export interface EnsembleRuntime {
  members: string[];
  /** platform/model of each member, in member order (absent in runs recorded before it existed). */
  memberLabels?: string[];
  quorumNode: string;
  minPass: number;
  stragglerMinutes: number | null;
  /** quorum_grace_minutes: null (or absent, in runs recorded before it existed) waits for every member. */
  graceMinutes?: number | null;
}

export interface SpecTopology {
  topology: Topology;
  ensembles: Record<string, EnsembleRuntime>;
  /** Some node declares commit_rights: true, so HEAD moves are judged. */
  commitRightsEnforced: boolean;
  /** The loop's infra_retries (absent in runs recorded before infra retries). */
  infraRetries?: number;
}

export interface RunContext {
  loopId: string;
  loopRunId: string;
  workflowId: string;
  specId: string;
  specStartHead: string;
  specCommittedHead: string;
  /** The paths uncommitted in the workdir when the spec started (absent in runs recorded before it was read). */
  specStartDirty?: string[];
  /** Where the run works when it is not the loop's workdir: its sandbox (absent otherwise, and in runs recorded before sandboxes). */
  workdir?: string;
}

export interface RunNodeInput extends RunContext {
  nodeName: string;
  round: number;
  /** Unique per execution within the workflow run: retries of one execution share it. */
  runKey: string;
  previousRunId: string | null;
  /** Judge this node's own HEAD move (false for ensemble members, which are judged as a group). */
  judgeCommitRights: boolean;
  stragglerMinutes: number | null;
}

export interface JoinQuorumInput extends RunContext {
  ensembleName: string;
  quorumNode: string;
  memberRunIds: string[];
  minPass: number;
  round: number;
  runKey: string;
  headBefore: string;
  judgeCommitRights: boolean;
  /** Set when the ensemble has a quorum grace and min_pass members passed while others still ran. */
  quorumMet?: QuorumMet;
}

/** When an ensemble with a quorum grace met its quorum (its cut members' runs say failure_kind quorum_met). */
export interface QuorumMet {
  /** Workflow time (ISO-8601) at which the min_pass-th member passed. */
  at: string;
  graceMinutes: number;
}

/** Members the quorum grace cut short: started ones whose activity was cancelled, and ones never started. */
export interface RecordCutMembersInput extends RunContext {
  round: number;
  minPass: number;
  quorumMetAt: string;
  graceMinutes: number;
  members: { nodeName: string; runKey: string }[];
}

export interface FinishLoopRunInput {
  loopId: string;
  loopRunId: string;
  status: 'completed' | 'failed';
  failingNode: string | null;
  failureKind: FailureKind | null;
  reason: string | null;
  resume: string | null;
}

export interface SpecStartInput {
  loopId: string;
  loopRunId: string;
  specId: string;
  workdir: string;
}

/** The workdir as a spec starts on it; `refusal` says why the spec may not start on it yet. */
export interface SpecStart {
  head: string;
  dirtyPaths: string[];
  refusal: string | null;
}

/** What a recurring schedule's firing did: started the loop's run, or skipped and why. */
export type ScheduledStart =
  { outcome: 'started'; detail: string; workflowId: string; runId: string } | { outcome: 'skipped'; detail: string };

export interface ClaimedSpec {
  specId: string;
  specName: string;
  /** Why the spec does not start: it failed the loop's spec_attempt_limit runs; it was left unclaimed. */
  attemptsExhausted?: string;
  /** The spec to resume was reset to pending since it failed, so it starts over at the entry node. */
  startsOver?: boolean;
}

export interface OpenSandboxInput {
  loopId: string;
  loopRunId: string;
  /** The loop's workdir, whose repository the worktree is made of. */
  workdir: string;
  /** The sandbox a failed run worked in, when it is continued; null makes or finds the run's own. */
  sandboxId: string | null;
}

export interface OpenedSandbox {
  sandboxId: string;
  /** The run's workdir inside the worktree. */
  workdir: string;
}

export interface LoopActivities {
  beginLoopRun(input: { loopId: string; queueId: string | null; workflowId: string; loopRunId: string | null }): Promise<{
    loopRunId: string;
    workdir: string;
    /** The host the workdir is on; null for a loop made before hosts, absent in runs recorded before them. */
    host?: string | null;
  }>;
  claimNextSpec(input: {
    loopId: string;
    queueId: string | null;
    resumeSpecId: string | null;
    /** Leave a spec that failed the loop's spec_attempt_limit runs unclaimed (absent in runs recorded before the limit). */
    enforceAttemptLimit?: boolean;
  }): Promise<ClaimedSpec | null>;
  loadTopology(input: { loopId: string }): Promise<SpecTopology>;
  readHead(input: { workdir: string }): Promise<string>;
  /** HEAD and the uncommitted paths at a spec's start, refusing a tree a failed run left dirty unless the loop allows it. */
  inspectSpecStart(input: SpecStartInput): Promise<SpecStart>;
  /** Makes (or, on a retry or a continued run, finds) the run's worktree on its own branch; runs on the workdir's host. */
  openSandbox(input: OpenSandboxInput): Promise<OpenedSandbox>;
  runNode(input: RunNodeInput): Promise<NodeOutcome>;
  evaluateNode(input: RunNodeInput): Promise<NodeOutcome>;
  joinQuorum(input: JoinQuorumInput): Promise<NodeOutcome>;
  /** Records each cut member's node run as failed with quorum_met; returns their ids, in the order given. */
  recordCutMembers(input: RecordCutMembersInput): Promise<string[]>;
  /** A failed spec also counts the run it failed in. */
  finishSpec(input: { specId: string; status: 'completed' | 'failed' | 'skipped' }): Promise<void>;
  setLoopStatus(input: { loopId: string; status: LoopStatus }): Promise<void>;
  /** Says whether a completed loop has an on_completed hook to run. */
  finishLoopRun(input: FinishLoopRunInput): Promise<{ hasCompletionHook: boolean }>;
  runCompletionHook(input: { loopId: string; loopRunId: string; completedSpecIds: string[]; workdir?: string }): Promise<void>;
  /** What an autorun Schedule does when it fires; returns what it did, for the Temporal UI. */
  resumeLoop(input: { loopId: string }): Promise<string>;
  /** What a recurring Schedule does when it fires: start the run as `canopy loop run` would, unless one is open or there is no work. */
  startScheduledRun(input: { loopId: string; queueId: string | null }): Promise<ScheduledStart>;
  /** Waits, heartbeating, for the run a firing started to end; says how it ended, or null when it still runs after `forSeconds`. */
  awaitLoopRunEnd(input: { workflowId: string; runId: string; forSeconds: number }): Promise<string | null>;
}
