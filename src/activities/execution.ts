// One process-backed node execution (agent or check), as the kind-specific executors see it.
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { confinementPolicy } from '../confinement-policy';
import type { NodeRun } from '../domain/node-run';
import { repositoryDirs } from '../git/repository-dirs';
import type { Verdict } from '../graph/verdicts';
import { updateNodeRun } from '../store/node-runs-repository';
import type { Confinement } from '../process/confinement';
import type { GroupRunResult } from '../process/process-group';
import { agentHomePath, openRunDirectory, removeRunDirectory } from '../process/run-directory';
import { PROJECT_ROOT } from '../project';
import { adoptSupervised, type ProcessRecord, type SupervisionOptions } from '../process/supervision';
import type { ActivityDeps } from './deps';
import type { NodeScene } from './node-scene';

export interface Execution {
  scene: Pick<NodeScene, 'loop' | 'node'>;
  run: NodeRun;
  values: Record<string, string>;
  /** The remarks a person queued for this run, oldest first: an agent's prompt carries them. */
  humanFeedback: string[];
  /** The ensemble's straggler limit for a member, else null. */
  stragglerMinutes: number | null;
  recordInput: (text: string) => Promise<void>;
  recordProcessGroup: (pgid: number) => Promise<void>;
  /** Keeps the newest lines of stdout on the run's record while it runs, for live views. */
  recordOutputTail: (tail: string) => Promise<void>;
  /** The earlier attempt's process to follow instead of starting one. */
  adopted: ProcessRecord | null;
}

/** How long a process may run, and may print nothing (null: for any time), in minutes. */
export interface ProcessLimits {
  minutes: number;
  idleMinutes: number | null;
}

/** A process's idle limit: its own, else its loop's default, else none. */
export function idleLimit(execution: Execution, own: number | undefined): number | null {
  return own ?? execution.scene.loop.settings.idle_timeout_minutes ?? null;
}

export interface ExecutionResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  cancelled: boolean;
  verdict: Verdict;
  unreported: boolean;
}

/**
 * An execution that keeps its run's record current. Every store write is on the step's critical
 * path: the rendered input is written with the process group (which must be on record before the
 * process can outlive this attempt), or at the end when nothing was started.
 */
export function recordedExecution(
  deps: ActivityDeps,
  fields: Pick<Execution, 'scene' | 'run' | 'values' | 'humanFeedback' | 'stragglerMinutes' | 'adopted'>,
): Execution & { renderedInput: () => string } {
  let renderedInput = '';
  return {
    ...fields,
    recordInput: (text) => {
      renderedInput = text;
      return Promise.resolve();
    },
    recordProcessGroup: async (pgid) => void (await updateNodeRun(deps.db, fields.run.id, { pgid, input: renderedInput })),
    recordOutputTail: async (tail) => void (await updateNodeRun(deps.db, fields.run.id, { stdout: tail })),
    renderedInput: () => renderedInput,
  };
}

/**
 * Runs an execution's process under its supervisor in the run's private directory: it follows the
 * process an earlier attempt left when there is one, else starts it with `start`. `judge` reads the
 * result before the directory is removed, which it is however the execution ends: a directory the
 * disk will not let go of changes nothing about the outcome, and the next worker to start removes it.
 */
export async function superviseInRunDirectory<T>(
  deps: ActivityDeps,
  execution: Execution,
  limits: ProcessLimits,
  start: (supervision: SupervisionOptions) => Promise<GroupRunResult>,
  judge: (result: GroupRunResult) => T | Promise<T>,
): Promise<T> {
  const runDir = openRunDirectory(deps.home, execution.run.id);
  let handedOn = false;
  try {
    const supervision = {
      ...supervisionOf(execution, runDir, limits, () => (handedOn = true)),
      confinement: confinementOf(deps, execution, runDir),
    };
    const result = execution.adopted ? await adoptSupervised(execution.adopted, supervision) : await start(supervision);
    return await judge(result);
  } finally {
    // The attempt that adopts a process handed on reads it from there.
    if (!handedOn) {
      try {
        removeRunDirectory(deps.home, execution.run.id);
      } catch (error) {
        Context.current().log.warn(`${(error as Error).message}; the next worker to start removes it`);
      }
    }
  }
}

/**
 * Where the execution's process is confined, as its loop and config.json say; null when it runs unconfined. It keeps
 * its workdir and the repository that is in: the working tree's top, where git finds it, and a worktree's git directories.
 */
function confinementOf(deps: ActivityDeps, execution: Execution, runDir: string): Confinement | null {
  const policy = confinementPolicy(deps.home, execution.scene.loop.settings.confine);
  if (!policy.confined) return null;
  const { workdir } = execution.scene.loop;
  // Its `canopy` shim and `canopy node mcp` run canopy's installation with this node, wherever they are.
  const readOnly = [PROJECT_ROOT, path.dirname(process.execPath)];
  const agentHome = execution.run.kind === 'agent' ? [agentHomePath(deps.home, execution.scene.loop.id, execution.run.node_name)] : [];
  return { bwrap: policy.bwrap, home: deps.home, runDir, writable: [workdir, ...repositoryDirs(workdir), ...agentHome], readOnly };
}

/** How long an attempt Temporal gave up on may take to learn whether a later one follows; past that it kills. */
const RETRY_LOOKUP_MS = 10_000;

/**
 * Whether this attempt's process is left to a later attempt: Temporal gave up on this one (it missed its
 * heartbeats, its worker starved or paused, or it was superseded) but the workflow still runs and has
 * scheduled the activity again, so the next attempt adopts the process. Any other cancellation kills it.
 */
async function retriedLater(activity: Context): Promise<boolean> {
  const reason = (activity.cancellationSignal.reason as Error | undefined)?.message;
  const { workflowExecution, activityId, attempt } = activity.info;
  if ((reason !== 'TIMED_OUT' && reason !== 'NOT_FOUND') || !workflowExecution) return false;
  const { client } = activity;
  try {
    const workflow = await client.connection.withDeadline(Date.now() + RETRY_LOOKUP_MS, () =>
      client.workflow.getHandle(workflowExecution.workflowId, workflowExecution.runId).describe(),
    );
    const pending = workflow.raw.pendingActivities ?? [];
    return workflow.status.name === 'RUNNING' && pending.some((next) => next.activityId === activityId && (next.attempt ?? 0) > attempt);
  } catch {
    return false;
  }
}

/**
 * How an execution's process is watched: within its limits, killed when its activity is cancelled
 * (handed on when a later attempt will adopt it). The activity is taken here, in its own async
 * context: the supervision's timers fire outside it.
 */
function supervisionOf(execution: Execution, runDir: string, limits: ProcessLimits, handOn: () => void): SupervisionOptions {
  const activity = Context.current();
  return {
    runDir,
    timeoutMs: limits.minutes * 60_000,
    idleMs: limits.idleMinutes === null ? null : limits.idleMinutes * 60_000,
    signal: activity.cancellationSignal,
    letGo: async () => {
      const later = await retriedLater(activity);
      if (later) handOn();
      return later;
    },
    onOutput: execution.recordOutputTail,
  };
}
