// `canopy doctor`: what canopy would use and whether each part answers.
import { spawnSync } from 'node:child_process';
import type { Connection } from '@temporalio/client';
import { loadPlatforms, platformBinary } from '../agents';
import type { CanopyConfig } from '../config';
import { LIVE_STATE_CONNECT_TIMEOUT_MS } from './context';
import { openDatabase, storeLocation } from '../store/database';
import { findOnPath, resolveTemporalBinary } from '../temporal/binary';
import { temporalClientSdk, temporalProto } from '../temporal/sdk';

export interface DoctorReport {
  home: string;
  temporal_binary: { path: string; source: string; version: string } | null;
  temporal_address: string;
  temporal_reachable: boolean;
  /** Why Temporal did not answer, when it did not. */
  temporal_error: string | null;
  namespace: string;
  task_queue: string;
  /** Workers polling the task queue, or null when Temporal does not answer. */
  workers_polling: number | null;
  store: { location: string; ok: boolean; error: string | null };
  platforms: { name: string; command: string; path: string | null }[];
}

export async function diagnose(config: CanopyConfig): Promise<DoctorReport> {
  const binary = resolveTemporalBinary();
  const [temporalState, store] = await Promise.all([probeTemporal(config), probeStore(config)]);
  return {
    home: config.home,
    temporal_binary: binary && { ...binary, version: binaryVersion(binary.path) },
    temporal_address: config.temporalAddress,
    temporal_reachable: temporalState.reachable,
    temporal_error: temporalState.error,
    namespace: config.namespace,
    task_queue: config.taskQueue,
    workers_polling: temporalState.pollers,
    store,
    platforms: platformBinaries(config.home),
  };
}

/** Workers polling canopy's task queue (0 when none), or null when Temporal does not answer. */
export async function countPollers(connection: Pick<Connection, 'workflowService'>, config: CanopyConfig): Promise<number> {
  const { temporal } = temporalProto();
  const response = await connection.workflowService.describeTaskQueue({
    namespace: config.namespace,
    taskQueue: { name: config.taskQueue },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return response.pollers?.length ?? 0;
}

async function probeTemporal(config: CanopyConfig): Promise<{ reachable: boolean; pollers: number | null; error: string | null }> {
  let connection: Connection | undefined;
  try {
    const { Connection } = temporalClientSdk();
    connection = await Connection.connect({ address: config.temporalAddress, connectTimeout: LIVE_STATE_CONNECT_TIMEOUT_MS });
    return { reachable: true, pollers: await countPollers(connection, config), error: null };
  } catch (error) {
    return { reachable: false, pollers: null, error: (error as Error).message };
  } finally {
    await connection?.close();
  }
}

async function probeStore(config: CanopyConfig): Promise<DoctorReport['store']> {
  const options = { url: config.databaseUrl, home: config.home };
  try {
    const db = await openDatabase(options);
    await db.destroy();
    return { location: storeLocation(options), ok: true, error: null };
  } catch (error) {
    return { location: storeLocation(options), ok: false, error: (error as Error).message };
  }
}

function binaryVersion(binary: string): string {
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return (result.stdout || result.stderr || '').trim() || 'unknown';
}

function platformBinaries(home: string): DoctorReport['platforms'] {
  try {
    return Object.entries(loadPlatforms(home)).map(([name, platform]) => {
      const command = platformBinary(platform);
      return { name, command, path: findOnPath(command, process.env.PATH ?? '') };
    });
  } catch {
    return [];
  }
}
