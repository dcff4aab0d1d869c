// Messages and shapes shared by the loop-run workflow, its activities and the client: defined once here.
import type { QueryDefinition, SignalDefinition, UpdateDefinition } from '@temporalio/common';
import type { FailureKind, HumanFeedback } from '../domain/node-run';
import type { Rounds } from '../graph/rounds';
import type { Turn } from '../graph/turns';
import type { Stalls } from '../graph/stalls';
import type { ApprovalDecisionKind } from '../node-kinds/approval';

export const loopWorkflowId = (loopId: string): string => `loop-${loopId}`;

/**
 * The task queue of one worker host: the runs of the loops whose workdirs are on it, and the
 * activities that touch those workdirs or their processes, so they run on the machine the workdir is
 * on. Every worker polls its host's queue beside the shared one (`taskQueue`), which keeps the
 * runs of loops with no host, the Schedules' workflows and their bookkeeping.
 */
export const hostTaskQueue = (taskQueue: string, hostId: string): string => `${taskQueue}@${hostId}`;

/** Where a loop's runs go: its host's queue, or the shared one for a loop with no host. */
export const runTaskQueue = (taskQueue: string, hostId: string | null): string =>
  hostId === null ? taskQueue : hostTaskQueue(taskQueue, hostId);

/**
 * The queue of ensemble members: a host's own, or the shared queue's for a loop with no host. Each
 * worker process polls both with at most `ensemble_concurrency` members running, so members wait
 * there for a slot, across every loop and ensemble, instead of all starting at once.
 */
export const memberTaskQueue = (taskQueue: string, hostId: string | null): string => `${runTaskQueue(taskQueue, hostId)}/members`;

/** The search attribute that follows a loop run's status (see temporal/search-attributes.ts). */
export const LOOP_STATUS_ATTRIBUTE = { name: 'CanopyLoopStatus', type: 'KEYWORD' } as const;

export type ContinueStrategy = 'retry' | 'skip';

/**
 * Attempts Temporal makes of a node activity before the node fails for good; the activity's last
 * attempt records a transient error as the node's failure instead of throwing it.
 */
export const NODE_MAX_ATTEMPTS = 5;

/** Where a failed or interrupted loop picks up again. */
export interface ResumePoint {
  specId: string;
  vertex: string;
  rounds: Rounds;
  strategy: ContinueStrategy;
  specStartHead: string;
  specCommittedHead: string;
  specStartDirty: string[];
  previousRunId: string | null;
  /** The member each cascade or round_robin ensemble of the spec starts with next, by name; absent: its first. */
  turns?: Record<string, Turn>;
  /** The watchdog's counts, carried across continue-as-new within a spec (absent when none counts; a continued failed run starts afresh). */
  stalls?: Stalls;
}

export interface LoopRunInput {
  loopId: string;
  queueId?: string | null;
  resume?: ResumePoint | null;
  /** The run's record: made when the run was requested, and carried across continue-as-new; none makes the run record itself. */
  loopRunId?: string | null;
  completedSpecIds?: string[];
  /** How often the run has blocked so far, carried across continue-as-new: each block's hooks fire once. */
  blocks?: number;
  engine: EngineSettings;
  /** Work in a git worktree of the workdir on a branch of the run's own, instead of in the workdir. */
  sandbox?: boolean;
  /** With sandbox: the worktree a failed run worked in, which this continuation goes on in. */
  sandboxId?: string | null;
  /** The shared task queue, named when the workflow runs on its host's queue: the names of the others are made from it. */
  sharedTaskQueue?: string;
  /** Remarks queued for the next agent run and not yet given to one, carried across continue-as-new. */
  feedback?: HumanFeedback[];
}

export interface EngineSettings {
  /** How long an activity may stay silent before Temporal assumes its worker died. */
  heartbeatTimeoutSeconds: number;
  /** Ensemble members one ensemble schedules at once, in member order (the member queue caps how many run per host). */
  ensembleConcurrency: number;
}

/** What a node execution returns to the workflow: ids and a short excerpt, never the full output. */
export interface NodeOutcome {
  nodeRunId: string;
  outcome: string;
  failureKind: FailureKind | null;
  reason: string | null;
  excerpt: string;
  /** The HEAD a commit_rights node's own execution left behind, when it moved HEAD. */
  committedHead: string | null;
}

/** `queued`: an ensemble member waiting on its member queue for a slot. */
export type VertexState = 'pending' | 'queued' | 'running' | 'pass' | 'fail' | 'stale';

/** The approval the walk stands at, waiting for a person. */
export interface WaitingApproval {
  node: string;
  /** When its on_timeout decides; null when it waits for ever. */
  deadline: string | null;
}

/** A person's decision of the approval a loop waits at. */
export interface ApprovalDecision {
  node: string;
  decision: ApprovalDecisionKind;
  /** Required to reject: it becomes the node's output. */
  comment: string | null;
  by: string;
}

/** A remark a person sends a running loop, for its next agent run; the run adds when it queued it. */
export type FeedbackRequest = Pick<HumanFeedback, 'message' | 'by'>;

/** Longest remark a run takes: a steer, not a document. */
export const FEEDBACK_LIMIT = 16_000;

export interface LiveState {
  status: 'running' | 'paused' | 'blocked' | 'waiting' | 'completed' | 'failed';
  specId: string | null;
  specName: string | null;
  vertex: string | null;
  rounds: Rounds;
  vertexStates: Record<string, VertexState>;
  /** Member node name to state, for the ensemble running now. */
  memberStates: Record<string, VertexState>;
  blockedReason: string | null;
  /** Absent in the state of runs begun before approvals. */
  approval?: WaitingApproval | null;
  /** Remarks waiting for the next agent run; absent in the state of runs begun before feedback. */
  queuedFeedback?: number;
}

export interface LoopRunResult {
  status: 'completed' | 'failed';
  failingNode: string | null;
  failureKind: FailureKind | null;
  reason: string | null;
  completedSpecIds: string[];
}

export type LoopRunWorkflow = (input: LoopRunInput) => Promise<LoopRunResult>;

// The shapes `defineSignal` and `defineQuery` of @temporalio/workflow return, written out so that a client
// reading loops does not load the workflow SDK.
const signal = <Args extends unknown[] = []>(name: string): SignalDefinition<Args> => ({ type: 'signal', name }) as SignalDefinition<Args>;
const query = <Result>(name: string): QueryDefinition<Result> => ({ type: 'query', name }) as QueryDefinition<Result>;
const update = <Result, Args extends unknown[]>(name: string): UpdateDefinition<Result, Args> =>
  ({ type: 'update', name }) as UpdateDefinition<Result, Args>;

export const pauseSignal = signal('pause');
export const continueSignal = signal<[{ strategy: ContinueStrategy }]>('continue');
export const blockSignal = signal<[{ reason: string }]>('block');
export const stateQuery = query<LiveState>('state');
/** Decides the approval the run waits at; its validator refuses a decision of anything else, and a second one. */
export const decideUpdate = update<ApprovalDecision, [ApprovalDecision]>('decide');
/** Queues a remark for the run's next agent run; answers how many now wait. Its validator refuses it once the run is ending. */
export const feedbackUpdate = update<{ queued: number }, [FeedbackRequest]>('feedback');
