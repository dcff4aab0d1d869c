// The cluster's canopy workers: `canopy worker` processes, one per host, each with a home of its
// own as on a machine of its own, all on the one store and the one Temporal server.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { CANOPY_BIN } from '../../src/project';
import { spawnLogged, waitForLog, type ClusterProcess } from './processes';

const WORKER_READY_MS = 120_000;

export interface WorkerSettings {
  host: string;
  /** The worker's CANOPY_HOME. */
  home: string;
  temporalAddress: string;
  databaseUrl: string;
}

function workerEnv(settings: WorkerSettings): NodeJS.ProcessEnv {
  return {
    ...process.env,
    CANOPY_HOME: settings.home,
    CANOPY_DATABASE_URL: settings.databaseUrl,
    TEMPORAL_ADDRESS: settings.temporalAddress,
    CANOPY_HOST_ID: settings.host,
  };
}

export function workerLogFile(home: string): string {
  return path.join(home, 'worker.log');
}

/** Starts `canopy worker` and resolves once it polls its task queue. */
export async function startCanopyWorker(settings: WorkerSettings): Promise<ClusterProcess> {
  mkdirSync(settings.home, { recursive: true, mode: 0o700 });
  const worker = spawnLogged(process.execPath, [CANOPY_BIN, 'worker'], workerEnv(settings), workerLogFile(settings.home));
  try {
    await waitForLog(worker, /Worker polling/, WORKER_READY_MS);
  } catch (error) {
    await worker.kill();
    throw error;
  }
  return worker;
}
