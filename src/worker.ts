// Starts the canopy workers of one process: one on the shared task queue (the workflows and every
// activity), one on this host's own queue (the activities that need this machine's workdirs), and one
// on each member queue (ensemble members, at most `ensemble_concurrency` at once on each).
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel, type LogMetadata, type WorkerOptions } from '@temporalio/worker';
import { workerIdentity, type CanopyConfig } from './config';
import { workflowSource } from './workflow-bundle';
import { memberCap } from './agents/config';
import { hostTaskQueue, memberTaskQueue, type LoopActivities } from './contract';
import { canopyDataConverter } from './temporal/codec/data-converter';
import { tracingOn, withTracing } from './telemetry/tracing';

export interface WorkerSetup {
  connection: NativeConnection;
  /** The namespace, the shared task queue, and this machine's host id, whose queue is `hostTaskQueue(taskQueue, hostId)`. */
  config: Pick<CanopyConfig, 'home' | 'namespace' | 'taskQueue' | 'hostId' | 'payloadKeys'>;
  activities: LoopActivities;
  /** The workflow code the shared queue's and the host's workers run: the built bundle by default (another copy only in tests). */
  workflows?: Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'>;
  /**
   * Runs the workflow code in the same sandbox but on the calling thread, not on a thread of each
   * workflow worker's own (the SDK's debugMode). A thread costs about 0.4 s of CPU to start, most of
   * a short-lived worker's cost; without one there is no deadlock detection, so daemons keep theirs.
   */
  workflowsOnCallingThread?: boolean;
}

/** A TS SDK worker serves one task queue, so a canopy worker is four, started and stopped together. */
export interface CanopyWorkers {
  /** The shared queue's: the runs of loops with no host and the Schedules' workflows, and every activity for them. */
  shared: Worker;
  /** The host queue's: the runs of this host's loops, and every activity that touches their workdirs. */
  host: Worker;
  /** The member queues' (this host's, and the shared one's for loops with no host): ensemble members, capped. */
  members: Worker[];
  /** How many members each member queue's worker runs at once: config.json's ensemble_concurrency when it started. */
  memberCap: number;
  /** Runs them all until all have stopped; one that fails stops the others, and its error is thrown. */
  run(): Promise<void>;
  /** Runs them all while `work` runs, then stops them; a worker that fails first ends it with its error. */
  runUntil<T>(work: () => Promise<T>): Promise<T>;
  /** Asks them all to stop (each finishes its running activities within the grace time); `run` settles then. */
  shutdown(): void;
}

/** What the SDK warns of every worker without workflows, which the member queues' are by design. */
const ACTIVITIES_ONLY_NOTICE = 'No workflows registered, not polling for workflow tasks';

/**
 * Workflow tasks each workflow worker (the shared queue's, the host's) takes at once. Its workflow
 * code runs on one thread, so a task taken beyond what that thread keeps up with only waits inside
 * the worker, where Temporal's 10 s workflow task timeout runs: on a busy machine (100 loops
 * started at once on 2 cores) the SDK's default of 40 let ~45 tasks time out and be done again. 8
 * let 0-2, but left the thread waiting on round trips to the server, and such a fleet took ~10%
 * longer; 16 lets a few (3-9) time out.
 */
export const WORKFLOW_TASK_SLOTS = 16;

/** The SDK's warnings and errors, less that notice. */
class QuietLogger extends DefaultLogger {
  override log(level: LogLevel, message: string, meta?: LogMetadata): void {
    if (message !== ACTIVITIES_ONLY_NOTICE) super.log(level, message, meta);
  }
}

let runtimeInstalled = false;

/**
 * Keeps the SDK's own logging to warnings and, given an address, serves Prometheus metrics there
 * (the SDK's worker metrics and canopy's own): once per process, before its first native connection.
 */
function installQuietRuntime(metricsAddress: string | null = null): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const metrics = metricsAddress && { metrics: { prometheus: { bindAddress: metricsAddress, useSecondsForDurations: true } } };
  // No shutdownSignals: the commands stop on SIGINT and SIGTERM themselves, at every stage of their
  // start-up, where the SDK's own handlers would swallow the signal with no worker running yet.
  Runtime.install({ logger: new QuietLogger('WARN'), shutdownSignals: [], ...(metrics && { telemetryOptions: metrics }) });
}

/** The worker's connection; the quiet runtime must exist before the first native connection. */
export async function connectWorker(address: string, metricsAddress: string | null = null): Promise<NativeConnection> {
  installQuietRuntime(metricsAddress);
  return NativeConnection.connect({ address });
}

export async function createWorkers(setup: WorkerSetup): Promise<CanopyWorkers> {
  installQuietRuntime();
  const common = {
    connection: setup.connection,
    namespace: setup.config.namespace,
    activities: setup.activities,
    identity: workerIdentity(setup.config.hostId),
    dataConverter: canopyDataConverter(setup.config.payloadKeys),
    shutdownGraceTime: '10 seconds',
  } as const;
  const workflows = setup.workflows ?? workflowSource(tracingOn());
  const runsOn = (taskQueue: string) =>
    Worker.create(
      withTracing({
        ...common,
        maxConcurrentWorkflowTaskExecutions: WORKFLOW_TASK_SLOTS,
        taskQueue,
        ...workflows,
        debugMode: setup.workflowsOnCallingThread ?? false,
      }),
    );
  // The host's queue runs the loops whose workdirs are here, beside their nodes; the shared one, the others.
  const shared = await runsOn(setup.config.taskQueue);
  const host = await runsOn(hostTaskQueue(setup.config.taskQueue, setup.config.hostId));
  // Read as the worker starts, as every setting of config.json is.
  const cap = { maxConcurrentActivityTaskExecutions: memberCap(setup.config.home) };
  const members = await Promise.all(
    [setup.config.hostId, null].map((hostId) =>
      Worker.create(withTracing({ ...common, ...cap, taskQueue: memberTaskQueue(setup.config.taskQueue, hostId) })),
    ),
  );
  const all = [shared, host, ...members];

  function shutdown(): void {
    for (const worker of all) if (worker.getState() === 'RUNNING') worker.shutdown();
  }

  let running: Promise<void> | undefined;
  function run(): Promise<void> {
    return (running ??= (async () => {
      const ends = await Promise.allSettled(
        all.map((worker) =>
          worker.run().catch((error: unknown) => {
            shutdown();
            throw error;
          }),
        ),
      );
      const failed = ends.find((end) => end.status === 'rejected');
      if (failed) throw failed.reason;
    })());
  }

  async function runUntil<T>(work: () => Promise<T>): Promise<T> {
    const workers = run();
    const stoppedFirst = workers.then(() => {
      throw new Error('The workers stopped before the work was done.');
    });
    try {
      return await Promise.race([work(), stoppedFirst]);
    } finally {
      shutdown();
      // A worker that failed wins over the work's own result.
      await workers;
    }
  }

  return { shared, host, members, memberCap: cap.maxConcurrentActivityTaskExecutions, run, runUntil, shutdown };
}
