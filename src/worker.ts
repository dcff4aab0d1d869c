// Starts the canopy worker: the loop-run workflow and every activity, on one task queue.
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { LoopActivities } from './activities/contract';
import { workflowSource } from './workflow-bundle';

export interface WorkerSetup {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: LoopActivities;
}

let runtimeInstalled = false;

/** Keeps the SDK's own logging to warnings, once per process. */
function installQuietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: new DefaultLogger('WARN') });
}

/** The worker's connection; the quiet runtime must exist before the first native connection. */
export async function connectWorker(address: string): Promise<NativeConnection> {
  installQuietRuntime();
  return NativeConnection.connect({ address });
}

export async function createWorker(setup: WorkerSetup): Promise<Worker> {
  installQuietRuntime();
  return Worker.create({
    connection: setup.connection,
    namespace: setup.namespace,
    taskQueue: setup.taskQueue,
    activities: setup.activities,
    ...workflowSource(),
    shutdownGraceTime: '10 seconds',
  });
}
