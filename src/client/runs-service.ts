// Running loops on Temporal: start, wait, pause, continue, stop, and the live view of a run.
import type { Client, WorkflowHandle } from '@temporalio/client';
import { memberCap } from '../agents/config';
import { repositoryRoot } from '../git/worktrees';
import { CanopyError, invalidInput, notFound } from '../domain/errors';
import { parseResumePoint } from '../store/resume-points';
import { OPEN_RUN_STATUSES, type Loop, type LoopStatus } from '../domain/loop';
import { deleteLoopRun, insertLoopRun, latestLoopRun, type LoopRun } from '../store/loop-runs-repository';
import { getLoop, setLoopStatus } from '../store/loops-repository';
import { runningNodeRuns } from '../store/node-runs-repository';
import { getQueue } from '../store/queues-repository';
import { sandboxOfRun } from '../store/sandboxes-repository';
import { listSpecs } from '../store/specs-repository';
import {
  ensureSearchAttributes,
  isUnmappedAttributeRefusal,
  LOOP_ID_KEY,
  LOOP_NAME_KEY,
  LOOP_STATUS_KEY,
  VERSION_KEY,
  WORKDIR_KEY,
} from '../temporal/search-attributes';
import { packageVersion } from '../project';
import {
  continueSignal,
  loopWorkflowId,
  pauseSignal,
  runTaskQueue,
  stateQuery,
  type ContinueStrategy,
  type EngineSettings,
  type LiveState,
  type LoopRunInput,
  type LoopRunResult,
  type ResumePoint,
  type LoopRunWorkflow,
  type WorkdirWait,
} from '../contract';
import { LIVE_STATE_CONNECT_TIMEOUT_MS, onThisHost, type ClientContext } from './context';
import { hasOpenRun, reconcileLoop, recordHooksStopped, recordRunClosed } from './closed-runs-service';
import { requireLoop } from './design-service';
import { countWorkflowPollers, unservedHostWarning } from './pollers-service';
import { temporalClientSdk } from '../temporal/sdk';
import type { WorkdirPlace } from '../store/workdir-claims-repository';
import { closingDeadHolder, holdWorkdir, WorkdirBusyError, workdirToClaim, workdirWait } from './workdir-claim-service';

export interface StartedRun {
  loop_id: string;
  workflow_id: string;
  run_id: string;
  /** Workers polling canopy's task queue when the run started; 0 means nothing will execute it yet. */
  workers_polling: number;
  /** What may keep the run from going on: no worker on the task queue, or none on the loop's host. */
  warnings: string[];
  /** The run works in a git worktree of its own (see sandbox_list), not in the loop's workdir. */
  sandboxed: boolean;
}

export async function startLoopRun(
  ctx: ClientContext,
  loopId: string,
  options: { queueId?: string | null; sandbox?: boolean } = {},
): Promise<StartedRun> {
  const loop = await requireLoop(ctx.db, loopId);
  if (loop.archived)
    throw new CanopyError('refused', `Loop ${loop.id} is archived; restore it with \`canopy loop restore ${loop.id}\` before running it.`);
  await requireWork(ctx, loop, options.queueId ?? null).catch(async (error: unknown) => {
    // A running loop's run has claimed its specs: that it runs is the answer, not that nothing is left to do.
    if (hasOpenRun(loop) && (await isRunning(await handleOf(ctx, loop.id)))) throw await alreadyRunning(ctx, loop, loopWorkflowId(loop.id));
    throw error;
  });
  if (options.sandbox) await requireSandboxable(ctx, loop);
  return startWorkflow(ctx, loop, {
    loopId: loop.id,
    queueId: options.queueId ?? null,
    resume: null,
    ...(options.sandbox && { sandbox: true }),
  });
}

export async function waitForLoopRun(ctx: ClientContext, loopId: string): Promise<LoopRunResult> {
  return (await handleOf(ctx, loopId)).result();
}

export async function pauseLoop(ctx: ClientContext, loopId: string): Promise<{ loop_id: string; requested: 'pause' }> {
  const loop = await reconcileLoop(ctx, await requireLoop(ctx.db, loopId));
  if (loop.status !== 'running')
    throw new CanopyError('refused', `Loop ${loop.id} is ${loop.status}, not running; only a running loop can be paused.`);
  await signalRunning(ctx, loop, (handle) => handle.signal(pauseSignal));
  return { loop_id: loop.id, requested: 'pause' };
}

/**
 * A paused or blocked loop resumes in its running workflow; a failed one starts a new run from its
 * resume point, rerunning the failed node (retry) or treating it as passed (skip).
 */
export async function continueLoop(
  ctx: ClientContext,
  loopId: string,
  strategy: ContinueStrategy = 'retry',
): Promise<{ loop_id: string; strategy: ContinueStrategy; resumed: 'signal' | 'new_run' }> {
  const loop = await reconcileLoop(ctx, await requireLoop(ctx.db, loopId));
  if (loop.status === 'paused' || loop.status === 'blocked') {
    await signalRunning(ctx, loop, (handle) => handle.signal(continueSignal, { strategy }));
    return { loop_id: loop.id, strategy, resumed: 'signal' };
  }
  if (loop.status === 'failed') {
    const last = await latestLoopRun(ctx.db, loop.id);
    const resume = resumePointOf(last);
    if (!resume)
      throw new CanopyError(
        'refused',
        `Loop ${loop.id} failed without a resume point; reset it with \`canopy loop reset ${loop.id}\` and run it again.`,
      );
    const sandbox = last && (await sandboxToContinueIn(ctx, loop, last));
    await startWorkflow(ctx, loop, { loopId: loop.id, queueId: last?.queue_id ?? null, resume: { ...resume, strategy }, ...sandbox });
    return { loop_id: loop.id, strategy, resumed: 'new_run' };
  }
  throw new CanopyError('refused', `Loop ${loop.id} is ${loop.status}; continue applies to paused, blocked or failed loops.`);
}

export interface StoppedLoop {
  loop_id: string;
  /** failed when its run was stopped; the outcome the run had already recorded when only its hooks were still running. */
  status: LoopStatus;
  /** What was stopped: the open run, or the hooks a run that had already ended was still running. */
  stopped: 'run' | 'hooks';
  /** How the workflow ended: cancelled (its activities killed their process groups), terminated, or already gone. */
  workflow: 'cancelled' | 'terminated' | 'not_running';
}

/** How long a stop waits for the workflow to finish cancelling (activities hear of it on their next heartbeat). */
export const STOP_GRACE_MS = 60_000;

/**
 * Stops the loop's run from any state: cancels the workflow (its activities kill their process
 * groups), terminates it when it does not finish cancelling within `graceMs` (no worker, a hung
 * one), and leaves the loop failed with reason `stopped`, ready for reset. A workflow whose run had
 * already ended, failed or completed, was only running its hooks: those are stopped, and the run's
 * outcome stands, resume point and all, so a failed loop can still be continued.
 */
export async function stopLoop(ctx: ClientContext, loopId: string, graceMs = STOP_GRACE_MS): Promise<StoppedLoop> {
  const loop = await requireLoop(ctx.db, loopId);
  const handle = await handleOf(ctx, loop.id);
  const running = await isRunning(handle);
  if (!running && !hasOpenRun(loop)) {
    throw new CanopyError('refused', `Loop ${loop.id} is ${loop.status} and no run of it is open; there is nothing to stop.`);
  }
  let workflow: StoppedLoop['workflow'] = 'not_running';
  if (running) {
    await handle.cancel();
    const ended = await Promise.race([handle.result().then(settled, settled), delay(graceMs).then(() => false)]);
    if (!ended) await handle.terminate('canopy loop stop: the run did not finish cancelling in time');
    workflow = ended ? 'cancelled' : 'terminated';
  }
  const stopped = { kind: 'stopped', reason: 'stopped' } as const;
  const now = await requireLoop(ctx.db, loop.id);
  if (running && !hasOpenRun(now)) {
    await recordHooksStopped(ctx, now, stopped);
    return { loop_id: loop.id, status: now.status, stopped: 'hooks', workflow };
  }
  await recordRunClosed(ctx, now, stopped);
  return { loop_id: loop.id, status: 'failed', stopped: 'run', workflow };
}

const settled = () => true;
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** How long a read waits for the running workflow to answer its state query once Temporal is reached. */
const LIVE_STATE_DEADLINE_MS = 1_500;

/**
 * The running workflow's own view (spec, node, rounds, member states), or null when no run is open.
 * Bounded in time, so a read never waits long on a Temporal server or worker that does not answer.
 */
export async function liveState(ctx: ClientContext, loopId: string): Promise<LiveState | null> {
  const client = await ctx.temporal(LIVE_STATE_CONNECT_TIMEOUT_MS);
  const { WorkflowNotFoundError } = temporalClientSdk();
  const handle = client.workflow.getHandle<LoopRunWorkflow>(loopWorkflowId(loopId));
  try {
    return await client.connection.withDeadline(Date.now() + LIVE_STATE_DEADLINE_MS, async () => {
      const description = await handle.describe();
      return description.status.name === 'RUNNING' ? await handle.query(stateQuery) : null;
    });
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  }
}

export interface LiveRead {
  state: LiveState | null;
  /** One line for a person when Temporal did not answer; null when it did or was not asked. */
  unavailable: string | null;
}

/**
 * The live state of a loop the store says has an open run (running, paused or blocked); the
 * store alone describes the others, so Temporal is not asked about them.
 */
export async function readLiveState(ctx: ClientContext, loop: Pick<Loop, 'id' | 'status'>): Promise<LiveRead> {
  if (!OPEN_RUN_STATUSES.includes(loop.status)) return { state: null, unavailable: null };
  try {
    return { state: await liveState(ctx, loop.id), unavailable: null };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      state: null,
      unavailable: `live state unavailable: Temporal at ${ctx.config.temporalAddress} did not answer (${why}); showing what the store knows`,
    };
  }
}

/** The run's resume point (null when it has none), or why canopy cannot use the one the store holds, naming the fix. */
export function readResumePoint(run: LoopRun | undefined): { point: ResumePoint | null } | { unusable: string } {
  if (!run?.resume) return { point: null };
  const read = parseResumePoint(run.resume);
  if ('point' in read) return read;
  return {
    unusable: `Loop run ${run.id} holds a resume point canopy cannot use (${read.problem}); reset the loop with \`canopy loop reset ${run.loop_id}\` and run it again.`,
  };
}

/** The run's resume point, or null when it has none; refused when the store holds one canopy cannot use. */
function resumePointOf(run: LoopRun | undefined): ResumePoint | null {
  const read = readResumePoint(run);
  if ('unusable' in read) throw new CanopyError('refused', read.unusable);
  return read.point;
}

async function startWorkflow(ctx: ClientContext, loop: Loop, input: Omit<LoopRunInput, 'engine'>): Promise<StartedRun> {
  const client = await ctx.temporal();
  const workflowId = loopWorkflowId(loop.id);
  const engine: EngineSettings = {
    heartbeatTimeoutSeconds: ctx.config.heartbeatTimeoutSeconds,
    ensembleConcurrency: memberCap(ctx.config.home),
  };
  // A loop the store shows with an open run is not touched: its workflow, if it is still open, owns its status.
  const place = await workdirToClaim(ctx, loop, input);
  const requested = hasOpenRun(loop)
    ? null
    : await closingDeadHolder(ctx, () => recordRequestedRun(ctx, loop, input.queueId ?? null, place));
  // On its host's queue the run is beside its nodes, and Temporal hands each one over in its reply to the workflow task.
  const taskQueue = runTaskQueue(ctx.config.taskQueue, loop.host);
  const start = () =>
    client.workflow.start<LoopRunWorkflow>('loopRunWorkflow', {
      taskQueue,
      workflowId,
      args: [
        {
          ...input,
          engine,
          ...(requested && { loopRunId: requested }),
          ...(taskQueue !== ctx.config.taskQueue && { sharedTaskQueue: ctx.config.taskQueue }),
        },
      ],
      typedSearchAttributes: [
        { key: LOOP_ID_KEY, value: loop.id },
        { key: LOOP_NAME_KEY, value: loop.name },
        { key: WORKDIR_KEY, value: loop.workdir },
        { key: LOOP_STATUS_KEY, value: 'running' },
        { key: VERSION_KEY, value: packageVersion() },
      ],
      staticSummary: `loop ${loop.name}`,
      staticDetails: [`workdir ${loop.workdir}`, input.queueId ? `queue ${input.queueId}` : 'its own specs'].join('\n'),
      memo: { loop_name: loop.name, workdir: loop.workdir, queue_id: input.queueId ?? null },
    });
  const handle = await start()
    .catch(async (error: unknown) => {
      // A server no worker has started against yet (a new cluster or namespace): the first run registers canopy's attributes.
      if (!isUnmappedAttributeRefusal(error)) throw error;
      await ensureSearchAttributes(client.connection, ctx.config.namespace);
      return start();
    })
    .catch(async (error: unknown) => {
      if (requested) await withdrawRequestedRun(ctx, loop, requested);
      const { WorkflowExecutionAlreadyStartedError } = temporalClientSdk();
      throw error instanceof WorkflowExecutionAlreadyStartedError ? await alreadyRunning(ctx, loop, workflowId) : error;
    });
  const workersPolling = await workflowPollers(ctx, client, taskQueue);
  const warnings = workersPolling === 0 ? [await unpolledWarning(ctx, client, loop)] : [];
  return {
    loop_id: loop.id,
    workflow_id: workflowId,
    run_id: handle.firstExecutionRunId,
    workers_polling: workersPolling,
    warnings,
    sandboxed: input.sandbox === true,
  };
}

/**
 * The run's record, its claim on the workdir and the loop's `running`, written together before
 * Temporal is asked to start the run: the run's own bookkeeping, which may end it before the start
 * is even answered, then always has the last word on the loop's status, and a workdir another
 * loop's run holds refuses the run with nothing written. Returns the record's id, which the run takes.
 */
async function recordRequestedRun(ctx: ClientContext, loop: Loop, queueId: string | null, place: WorkdirPlace | null): Promise<string> {
  return ctx.db.transaction().execute(async (tx) => {
    const run = await insertLoopRun(tx, { loop_id: loop.id, workflow_id: loopWorkflowId(loop.id), queue_id: queueId });
    if (place) await holdWorkdir(tx, loop, place, run.id);
    await setLoopStatus(tx, loop.id, 'running');
    return run.id;
  });
}

/**
 * Takes back a requested run whose start failed. The loop gets its status back unless a run of it
 * is open after all (another start of it won) or has since recorded an outcome.
 */
async function withdrawRequestedRun(ctx: ClientContext, loop: Loop, runId: string): Promise<void> {
  await ctx.db.transaction().execute(async (tx) => {
    await deleteLoopRun(tx, runId);
    const [now, last] = await Promise.all([getLoop(tx, loop.id), latestLoopRun(tx, loop.id)]);
    if (now?.status === 'running' && last?.status !== 'running') await setLoopStatus(tx, loop.id, loop.status);
  });
}

/** Why a run cannot start while the loop's workflow is open: its run, or the hooks of one that has ended. */
async function alreadyRunning(ctx: ClientContext, loop: Loop, workflowId: string): Promise<CanopyError> {
  const hooks = hasOpenRun(loop) ? [] : await runningNodeRuns(ctx.db, loop.id);
  if (hooks.length === 0) {
    return new CanopyError('conflict', `Loop ${loop.id} is already running (workflow ${workflowId}); pause it or wait for it to finish.`);
  }
  return new CanopyError(
    'conflict',
    `Loop ${loop.id} is ${loop.status}, but the hooks of its last run are still running (${hooks.map((run) => `${run.node_name}, node run ${run.id}`).join('; ')}); ` +
      `wait for them to end, or end them with \`canopy loop stop ${loop.id}\`, which keeps the run's outcome, then try again.`,
  );
}

async function requireWork(ctx: ClientContext, loop: Loop, queueId: string | null): Promise<void> {
  if (queueId) {
    const queue = await getQueue(ctx.db, queueId);
    if (!queue) throw notFound('queue', queueId, 'List queues with `canopy queue list`.');
    const specs = await listSpecs(ctx.db, {});
    const pending = specs.filter((spec) => queue.spec_ids.includes(spec.id) && spec.status === 'pending');
    if (pending.length === 0)
      throw new CanopyError('refused', `Queue ${queueId} has no pending specs; add some with \`canopy queue add\`.`);
    return;
  }
  const pending = await listSpecs(ctx.db, { loopId: loop.id, status: 'pending' });
  if (pending.length === 0) {
    throw new CanopyError(
      'refused',
      `Loop ${loop.id} has no pending specs; add one with \`canopy spec create --loop ${loop.id} --name <name> --content <text>\`, or reset the loop.`,
    );
  }
}

/** A sandboxed run needs a repository with a commit; checked here when the workdir is on this machine, else by the run on its host. */
async function requireSandboxable(ctx: ClientContext, loop: Loop): Promise<void> {
  if (!onThisHost(ctx, loop.host)) return;
  const repository = await repositoryRoot(loop.workdir);
  if (repository.root === undefined) {
    throw invalidInput(`A sandboxed run of loop ${loop.id}`, [
      {
        field: 'sandbox',
        message: `needs the loop's workdir in a git repository with at least one commit, but ${repository.problem}; commit there first (git init && git add -A && git commit), or run without sandbox`,
      },
    ]);
  }
}

/** A failed run that worked in a sandbox continues there; one whose sandbox was landed or discarded cannot. */
async function sandboxToContinueIn(ctx: ClientContext, loop: Loop, run: LoopRun): Promise<Pick<LoopRunInput, 'sandbox' | 'sandboxId'>> {
  const sandbox = await sandboxOfRun(ctx.db, run.id);
  if (!sandbox) return {};
  if (sandbox.status !== 'active') {
    throw new CanopyError(
      'refused',
      `Loop ${loop.id} failed in sandbox ${sandbox.id}, which was ${sandbox.status}, so its run cannot go on there; reset it with \`canopy loop reset ${loop.id}\` and run it again.`,
    );
  }
  return { sandbox: true, sandboxId: sandbox.id };
}

async function handleOf(ctx: ClientContext, loopId: string): Promise<WorkflowHandle<LoopRunWorkflow>> {
  return (await ctx.temporal()).workflow.getHandle(loopWorkflowId(loopId));
}

async function isRunning(handle: WorkflowHandle<LoopRunWorkflow>): Promise<boolean> {
  const { WorkflowNotFoundError } = temporalClientSdk();
  return handle.describe().then(
    (description) => description.status.name === 'RUNNING',
    (error: unknown) => {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    },
  );
}

async function signalRunning(
  ctx: ClientContext,
  loop: Loop,
  send: (handle: WorkflowHandle<LoopRunWorkflow>) => Promise<void>,
): Promise<void> {
  try {
    await send(await handleOf(ctx, loop.id));
  } catch (error) {
    const { WorkflowNotFoundError } = temporalClientSdk();
    if (error instanceof WorkflowNotFoundError) {
      throw new CanopyError(
        'conflict',
        `Loop ${loop.id} is marked ${loop.status} but no run of it is open in Temporal; stop it with \`canopy loop stop ${loop.id}\`, then reset it.`,
      );
    }
    throw error;
  }
}

const workflowPollers = (ctx: ClientContext, client: Client, taskQueue: string): Promise<number> =>
  countWorkflowPollers(client.connection, ctx.config, taskQueue).catch(() => 0);

/** Why no worker takes a loop's run: none polls canopy's task queue at all, or none serves the loop's host. */
async function unpolledWarning(ctx: ClientContext, client: Client, loop: Loop): Promise<string> {
  if (loop.host && (await workflowPollers(ctx, client, ctx.config.taskQueue)) > 0) {
    return unservedHostWarning({ name: loop.name, host: loop.host });
  }
  return `no worker polls task queue '${ctx.config.taskQueue}'; the run waits until one starts (\`canopy up\` or \`canopy worker\`).`;
}

/**
 * What an autorun does when it fires: start a pending loop, continue a failed, paused or blocked one.
 * Told to wait for the workdir, a start that finds it held by another loop's run says what holds it.
 */
export async function resumeLoop(ctx: ClientContext, loopId: string, waitForWorkdir = false): Promise<string | WorkdirWait> {
  return resumeLoopNow(ctx, loopId).catch((error: unknown) => {
    if (error instanceof WorkdirBusyError && waitForWorkdir) return workdirWait(error);
    throw error;
  });
}

async function resumeLoopNow(ctx: ClientContext, loopId: string): Promise<string> {
  const loop = await requireLoop(ctx.db, loopId);
  switch (loop.status) {
    case 'pending':
      return `started ${(await startLoopRun(ctx, loop.id)).workflow_id}`;
    case 'failed':
    case 'paused':
    case 'blocked':
      return `continued a ${loop.status} loop (${(await continueLoop(ctx, loop.id, 'retry')).resumed})`;
    default:
      return `nothing to do: the loop is ${loop.status}`;
  }
}
