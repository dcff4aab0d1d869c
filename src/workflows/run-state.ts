// What one loop run carries through its levels, passed explicitly: who it is, where it works,
// what a person asked for through its signals, and the live state its query answers.
import { continueAsNew } from '@temporalio/workflow';
import type {
  ApprovalDecision,
  ContinueStrategy,
  EngineSettings,
  LiveState,
  LoopRunInput,
  LoopRunWorkflow,
  ResumePoint,
  RunContext,
  RunNodeInput,
  SpecTopology,
} from '../contract';
import type { HumanFeedback } from '../domain/node-run';
import type { Rounds } from '../graph/rounds';
import type { Turn } from '../graph/turns';
import type { Stalls } from '../graph/stalls';
import type { LoopRunActivities } from './activity-options';

/** What the signals asked for, read at the run's checkpoints. */
export interface Requests {
  pause: boolean;
  continueWith: ContinueStrategy | null;
  /** The decision of the approval the walk waits at, once a person made it. */
  decision: DecidedApproval | null;
  /** Remarks for the next agent run, oldest first. */
  feedback: HumanFeedback[];
}

export interface DecidedApproval extends ApprovalDecision {
  at: string;
}

export interface LoopRun {
  readonly input: LoopRunInput;
  readonly loopId: string;
  readonly loopRunId: string;
  readonly workflowId: string;
  readonly engine: EngineSettings;
  readonly activities: LoopRunActivities;
  /** Where the nodes work: the loop's workdir, or the run's sandbox. */
  readonly workdir: string;
  /** What tells the activities to work in the sandbox rather than the loop's workdir (empty without one). */
  readonly sandboxWorkdir: { workdir?: string };
  readonly live: LiveState;
  readonly requests: Requests;
  readonly completedSpecIds: string[];
  /** How often the run has blocked so far: each block's hooks fire once. */
  blocks: number;
}

export function initialLiveState(): LiveState {
  return {
    status: 'running',
    specId: null,
    specName: null,
    vertex: null,
    rounds: {},
    vertexStates: {},
    memberStates: {},
    blockedReason: null,
    approval: null,
  };
}

/** Hands the run on to a fresh workflow run that resumes at `resume` (or claims the next spec), carrying what it has done. */
export async function continueRunAsNew(run: LoopRun, resume: ResumePoint | null): Promise<never> {
  const { input, loopRunId, completedSpecIds, blocks, requests } = run;
  const feedback = requests.feedback.length > 0 ? { feedback: requests.feedback } : {};
  return continueAsNew<LoopRunWorkflow>({ ...input, resume, loopRunId, completedSpecIds, blocks, ...feedback });
}

/** One spec's walk through the graph: the topology read at its start, and where the walk stands. */
export interface SpecWalk {
  readonly specId: string;
  readonly graph: SpecTopology;
  /** What every node execution of the spec is told; `specCommittedHead` follows the commits of commit_rights nodes. */
  readonly context: RunContext;
  rounds: Rounds;
  /** The no-progress watchdog's counts per loop head. */
  stalls: Stalls;
  /** The last node that failed since a round last ended, which the watchdog judges the next round's end by. */
  lastFailure: { vertex: string; nodeRunId: string } | null;
  /** The node run the next node reads as its upstream. */
  previousRunId: string | null;
  /** The first node of a resumed walk is treated as passed (a continue with skip). */
  skipNext: boolean;
  /** How often each vertex ran in this workflow run, which keys its executions. */
  readonly visits: Map<string, number>;
  /** Whose turn each cascade or round_robin ensemble of the spec starts with next, by name; absent: its first member's. */
  turns: Record<string, Turn>;
  /** The vertex a continue retries the spec at (null otherwise): on its first visit, isolated members work on in the worktrees they had. */
  readonly retriedAt: string | null;
}

/** What every execution of one visit shares; each kind adds the node it runs and how HEAD moves are judged. */
export type ExecutionBase = Omit<RunNodeInput, 'nodeName' | 'judgeCommitRights' | 'node'>;
