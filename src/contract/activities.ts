// The activities the loop-run workflow calls: their inputs and results, shared by both sides.
import type { EnsembleKind } from '../domain/ensemble';
import type { HookEvent } from '../domain/hooks';
import type { LoopStatus } from '../domain/loop';
import type { FailureKind, HumanFeedback } from '../domain/node-run';
import type { RoundFingerprint } from '../graph/stalls';
import type { Topology } from '../graph/topology';
import type { ExecutedKind, JudgingKind } from '../node-kinds/catalogue';
import type { ApprovalDecisionKind } from '../node-kinds/approval';
import type { NodeOutcome, ResumePoint } from './loop-run';
import type { NotificationInput } from './notifications';

export interface EnsembleRuntime {
  members: string[];
  /** platform/model of each member, in member order. */
  memberLabels: string[];
  quorumNode: string;
  minPass: number;
  stragglerMinutes: number | null;
  /** quorum_grace_minutes: null waits for every member. */
  graceMinutes: number | null;
  /** isolation: worktree: each member works in a worktree of its own (absent: in the run's workdir). */
  isolated?: boolean;
  /** Each member's agent config, in member order; absent in graphs read before configs were handed. */
  memberConfigs?: Record<string, unknown>[];
  /** The members take turns (cascade, round_robin); absent: they run side by side. */
  kind?: Exclude<EnsembleKind, 'parallel'>;
}

export interface SpecTopology {
  topology: Topology;
  ensembles: Record<string, EnsembleRuntime>;
  /** Some node declares commit_rights: true, so HEAD moves are judged. */
  commitRightsEnforced: boolean;
  /** The loop's infra_retries. */
  infraRetries: number;
  /** The loop's infra_backoff_seconds; absent when it sets none, and in runs recorded before the setting. */
  infraBackoffSeconds?: number;
  /** The loop or the spec has budget_usd or budget_tokens, so each node first asks whether the run may go on. */
  budgeted?: boolean;
}

export interface CheckBudgetInput {
  loopId: string;
  loopRunId: string;
  /** The node (or ensemble) about to start. */
  node: string;
  /** The spec it works on, whose own budgets count too. */
  specId?: string;
}

/** A round of a watched loop that ended on a failure: where the tree is, and the node run that failed. */
export interface FingerprintRoundInput {
  loopId: string;
  /** The run's workdir: the loop's, or its sandbox. */
  workdir: string;
  nodeRunId: string;
}

export interface RunContext {
  loopId: string;
  loopRunId: string;
  workflowId: string;
  specId: string;
  specStartHead: string;
  specCommittedHead: string;
  /** The paths uncommitted in the workdir when the spec started. */
  specStartDirty: string[];
  /** Where the run works when it is not the loop's workdir: its sandbox (absent otherwise). */
  workdir?: string;
}

/** The node a run is of, as the walk's graph holds it: the activity runs this kind with this config. */
export interface HandedNode<Kind extends string> {
  kind: Kind;
  config: Record<string, unknown>;
}

interface NodeRunInput extends RunContext {
  nodeName: string;
  round: number;
  /** Unique per execution within the workflow run: retries of one execution share it. */
  runKey: string;
  previousRunId: string | null;
  /** Judge this node's own HEAD move (false for members sharing the workdir, which are judged as a group). */
  judgeCommitRights: boolean;
  stragglerMinutes: number | null;
}

export interface RunNodeInput extends NodeRunInput {
  /** Absent only where the walk's graph was read before nodes were handed: the stored node stands in. */
  node?: HandedNode<ExecutedKind>;
  /** The remarks a person queued for this agent run (an agent's prompt gets them; a check ignores them). */
  humanFeedback?: HumanFeedback[];
}

export interface EvaluateNodeInput extends NodeRunInput {
  /** Absent only where the walk's graph was read before nodes were handed: the stored node stands in. */
  node?: HandedNode<JudgingKind>;
}

/** An approval the walk reached: its node run is opened waiting, with the message rendered, and the loop is waiting. */
export interface OpenApprovalInput extends NodeRunInput {
  node: HandedNode<'approval'>;
  /** When its on_timeout decides; null when it waits for ever. */
  deadline: string | null;
}

/** How an approval was decided: by a person, or by its timeout (`by` is then "timeout"). */
export interface CloseApprovalInput {
  loopId: string;
  nodeRunId: string;
  decision: ApprovalDecisionKind;
  by: string;
  comment: string | null;
  decidedAt: string;
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
  /** Where isolated members worked: each one's diff against the starting tree joins its section. */
  memberWorktrees?: MemberWorktrees;
  /** Members that took turns: which ran and why, the document's first lines. */
  turnsAccount?: string;
}

/** Names an isolated ensemble's worktrees: one set per loop, spec and ensemble, on the workdir's host. */
export interface MemberWorktreesPlace {
  loopId: string;
  specId: string;
  ensembleName: string;
  /** The run's workdir (the loop's, or its sandbox's), whose repository the worktrees belong to. */
  workdir: string;
}

export interface OpenMemberWorktreesInput extends MemberWorktreesPlace {
  members: number;
  /** Work on in the worktrees a failed run left (a continue retrying this ensemble); otherwise any left over are made anew. */
  reuse: boolean;
}

export interface MemberWorktrees {
  /** The commit of the tree the members started from (HEAD plus the uncommitted changes), their diffs are taken against. */
  start: string;
  /** Each member's workdir inside its worktree, in member order. */
  workdirs: string[];
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

export interface BeginLoopRunInput {
  loopId: string;
  queueId: string | null;
  workflowId: string;
  /** The run's record, made when the run was requested or carried across continue-as-new; null records a new run. */
  loopRunId: string | null;
}

export interface BegunLoopRun {
  loopRunId: string;
  workdir: string;
  /** The host the workdir is on; null for a loop made before hosts. */
  host: string | null;
}

export interface ClaimNextSpecInput {
  loopId: string;
  queueId: string | null;
  /** The resume point's spec, claimed instead of the next pending one. */
  resumeSpecId: string | null;
}

export interface OpenNextSpecInput extends ClaimNextSpecInput {
  loopRunId: string;
  /** Where the run works: the loop's workdir, or its sandbox's. */
  workdir: string;
}

/** A claimed spec with what its walk starts from, read in the same trip to the workdir's host. */
export interface OpenedSpec extends ClaimedSpec {
  /** The tree a spec that starts afresh starts on; absent when it resumes where a run left it, or was not claimed. */
  start?: SpecStart;
  /** The graph its walk follows; absent when it was not claimed (its attempts are used up). */
  graph?: SpecTopology;
}

export interface FinishSpecInput {
  loopId: string;
  specId: string;
  status: 'completed' | 'failed' | 'skipped';
  /** Asks whether a spec is left for the run to claim next, in the loop or in its queue; absent, not asked. */
  nextFrom?: { queueId: string | null };
}

/** A spec finished: whether its loop has on_spec_completed hooks to run, and, when asked, whether a spec is left to claim. */
export interface FinishedSpec extends HookPresence {
  specsLeft?: boolean;
}

export interface SetLoopStatusInput {
  loopId: string;
  status: LoopStatus;
  /** Entering blocked: why, where, and the run's workflow, which its notification tells of (absent in runs begun before notifications). */
  blocker?: { reason: string; node: string | null; specId: string | null; specName: string | null; workflowId: string };
}

export interface FinishLoopRunInput {
  loopId: string;
  loopRunId: string;
  status: 'completed' | 'failed';
  failingNode: string | null;
  failureKind: FailureKind | null;
  reason: string | null;
  resume: ResumePoint | null;
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

/** What the workflow knows of the event a loop's hooks run for; the activity reads the rest from the store. */
export interface HookFacts {
  /** The node the run failed or blocked at. */
  node?: string;
  failureKind?: FailureKind | null;
  reason?: string | null;
  blocker?: string;
  specId?: string | null;
  specName?: string | null;
}

export interface RunHooksInput {
  loopId: string;
  loopRunId: string;
  event: HookEvent;
  /** Which time in the run the event happened: `run` for its end, the block's number, the spec id and its completion's number. */
  occurrence: string;
  completedSpecIds: string[];
  facts: HookFacts;
  /** The sandbox the run works in, in place of the loop's workdir (absent for a run without one). */
  workdir?: string;
}

/** Whether the loop has hooks for the event a bookkeeping step marks (a run's end, a block, a spec completed). */
export interface HookPresence {
  hasHooks: boolean;
}

/** What a recurring schedule's firing did: started the loop's run, or skipped and why. */
export type ScheduledStart =
  { outcome: 'started'; detail: string; workflowId: string; runId: string } | { outcome: 'skipped'; detail: string };

/** A start that found the loop's workdir held by another loop's open run, told to wait for it rather than give up: what holds it. */
export interface WorkdirWait {
  outcome: 'waiting';
  detail: string;
}

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
  beginLoopRun(input: BeginLoopRunInput): Promise<BegunLoopRun>;
  claimNextSpec(input: ClaimNextSpecInput): Promise<ClaimedSpec | null>;
  /** Claims the next spec as claimNextSpec does, with the tree it starts on and its graph; runs on the workdir's host. */
  openNextSpec(input: OpenNextSpecInput): Promise<OpenedSpec | null>;
  /** The loop's graph as a spec's walk uses it (`specId` says whether that spec has a budget of its own). */
  loadTopology(input: { loopId: string; specId?: string }): Promise<SpecTopology>;
  readHead(input: { workdir: string }): Promise<string>;
  /** HEAD and the uncommitted paths at a spec's start, refusing a tree a failed run left dirty unless the loop allows it. */
  inspectSpecStart(input: SpecStartInput): Promise<SpecStart>;
  /** Makes (or, on a retry or a continued run, finds) the run's worktree on its own branch; runs on the workdir's host. */
  openSandbox(input: OpenSandboxInput): Promise<OpenedSandbox>;
  /** Makes (or finds) a worktree per member of an isolated ensemble from the workdir's tree; runs on the workdir's host. */
  openMemberWorktrees(input: OpenMemberWorktreesInput): Promise<MemberWorktrees>;
  /** Removes an isolated ensemble's worktrees; runs on the workdir's host. */
  removeMemberWorktrees(input: MemberWorktreesPlace): Promise<void>;
  runNode(input: RunNodeInput): Promise<NodeOutcome>;
  /** The watchdog's reading of a round's end: the tree's fingerprint and the failing node's output hashed; runs on the workdir's host. */
  fingerprintRound(input: FingerprintRoundInput): Promise<RoundFingerprint>;
  /** Why the node may not start because the run's budget is used up (the blocker to show), or null. */
  checkBudget(input: CheckBudgetInput): Promise<string | null>;
  evaluateNode(input: EvaluateNodeInput): Promise<NodeOutcome>;
  joinQuorum(input: JoinQuorumInput): Promise<NodeOutcome>;
  /** Records the approval's node run as waiting, with its message, and the loop as waiting. */
  openApproval(input: OpenApprovalInput): Promise<{ nodeRunId: string }>;
  /** Records the decision on the approval's node run and the loop as running again. */
  closeApproval(input: CloseApprovalInput): Promise<NodeOutcome>;
  /** Records each cut member's node run as failed with quorum_met; returns their ids, in the order given. */
  recordCutMembers(input: RecordCutMembersInput): Promise<string[]>;
  /** A failed spec also counts the run it failed in; a completed one says whether on_spec_completed has hooks. */
  finishSpec(input: FinishSpecInput): Promise<FinishedSpec>;
  /** Entering blocked says whether on_blocked has hooks. */
  setLoopStatus(input: SetLoopStatusInput): Promise<HookPresence>;
  /** Says whether the run's end has hooks: on_completed or on_failed. */
  finishLoopRun(input: FinishLoopRunInput): Promise<HookPresence>;
  /** Runs each hook the loop has for the event, once, in order. */
  runHooks(input: RunHooksInput): Promise<void>;
  /** What an autorun Schedule does when it fires; returns what it did, for the Temporal UI, or what holds the workdir when told to wait for it. */
  resumeLoop(input: { loopId: string; waitForWorkdir?: boolean }): Promise<string | WorkdirWait>;
  /**
   * What a recurring Schedule does when it fires: start the run as `canopy loop run` would, unless one is open
   * or there is no work; a workdir another loop's run holds skips the firing, or, told to wait for it, says what holds it.
   */
  startScheduledRun(input: { loopId: string; queueId: string | null; waitForWorkdir?: boolean }): Promise<ScheduledStart | WorkdirWait>;
  /** Waits, heartbeating, for the run a firing started to end; says how it ended, or null when it still runs after `forSeconds`. */
  awaitLoopRunEnd(input: { workflowId: string; runId: string; forSeconds: number }): Promise<string | null>;
  /** POSTs one notification to its receiver; says how it went, and throws to be tried again while attempts are left. */
  deliverNotification(input: NotificationInput): Promise<string>;
}
