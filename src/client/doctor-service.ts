// `canopy doctor`: what canopy would use and whether each part answers.
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import type { Connection } from '@temporalio/client';
import { loadPlatforms, platformBinary } from '../agents';
import { configFilePath } from '../agents/config-file';
import { hostOfWorkerIdentity, type CanopyConfig } from '../config';
import { LIVE_STATE_CONNECT_TIMEOUT_MS } from './context';
import { openDatabase, storeLocation } from '../store/database';
import { listLoops, loopCountsByHost } from '../store/loops-repository';
import { confinementPolicy, describeConfinement } from '../confinement-policy';
import { findOnPath } from '../process/find-on-path';
import { resolveTemporalBinary } from '../temporal/binary';
import { temporalClientSdk } from '../temporal/sdk';
import { hostTaskQueue } from '../contract';
import { countHostPollers, pollerIdentities, type WorkflowService } from './pollers-service';
import { openLoopRuns, runsPerVersion } from './run-versions-service';
import { notifyFailureOf, type NotifyFailure } from './notifications-service';
import { lastFailedNotification } from '../store/notifications-repository';
import { NOTIFY_EVENTS, shownUrl } from '../domain/notify';
import { notifyReceivers } from '../agents/config';

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
  /** This machine's host id (CANOPY_HOST_ID, default the hostname): loops made here live on it. */
  host_id: string;
  /**
   * Every host a worker on the task queue names in its identity, and every host a loop lives on,
   * with the workers polling its own queue; null when Temporal does not answer.
   */
  hosts: HostReport[] | null;
  /** Open loop runs per canopy version that started them ('unrecorded' for none), or null when Temporal does not answer. */
  open_runs_per_version: Record<string, number> | null;
  store: { location: string; ok: boolean; error: string | null };
  /** `<home>/config.json` (it may hold API keys) and its mode, e.g. "0600"; null when there is none. */
  config_file: { path: string; mode: string; private: boolean } | null;
  platforms: { name: string; command: string; path: string | null }[];
  /** The ids of the keys that encrypt payloads in Temporal's history, the current one first; empty when nothing is encrypted. */
  payload_key_ids: string[];
  /** Whether agents and checks run confined (bwrap) on this machine, and the loops whose settings turn it off. */
  confinement: { confined: boolean; chosen: boolean; detail: string; unconfined_loops: string[] };
  /** The receivers config.json tells of every loop's events (URLs with their secret parts hidden), and the newest delivery that failed. */
  notify: { receivers: { url: string; format: string; events: string[] }[]; last_failure: NotifyFailure | null };
}

export interface HostReport {
  host_id: string;
  /** The host's own task queue, where its loops' nodes wait for its workers. */
  task_queue: string;
  workers_polling: number;
  /** Loops (archived ones left out) whose workdir is on the host. */
  loops: number;
}

export async function diagnose(config: CanopyConfig): Promise<DoctorReport> {
  const binary = resolveTemporalBinary();
  const storeProbe = probeStore(config);
  const [temporalState, { store }] = await Promise.all([
    probeTemporal(
      config,
      storeProbe.then((probe) => probe.loopHosts),
    ),
    storeProbe,
  ]);
  return {
    home: config.home,
    temporal_binary: binary && { ...binary, version: binaryVersion(binary.path) },
    temporal_address: config.temporalAddress,
    temporal_reachable: temporalState.reachable,
    temporal_error: temporalState.error,
    namespace: config.namespace,
    task_queue: config.taskQueue,
    workers_polling: temporalState.pollers,
    host_id: config.hostId,
    hosts: temporalState.hosts,
    open_runs_per_version: temporalState.openRuns,
    store,
    config_file: configFileState(config.home),
    platforms: platformBinaries(config.home),
    payload_key_ids: config.payloadKeys.map((key) => key.id),
    confinement: { ...confinementState(config.home), unconfined_loops: (await storeProbe).unconfinedLoops },
    notify: { receivers: configReceivers(config.home), last_failure: (await storeProbe).notifyFailure },
  };
}

function confinementState(home: string): Omit<DoctorReport['confinement'], 'unconfined_loops'> {
  try {
    const policy = confinementPolicy(home);
    return { confined: policy.confined, chosen: !policy.confined && policy.chosen, detail: describeConfinement(policy) };
  } catch (error) {
    return { confined: false, chosen: false, detail: `unknown until config.json can be read: ${(error as Error).message}` };
  }
}

/** The mode of config.json as found: doctor only reports it, while every other command narrows it to 0600 when it is ours. */
function configFileState(home: string): DoctorReport['config_file'] {
  const file = configFilePath(home);
  let mode: number;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    return null;
  }
  return { path: file, mode: `0${mode.toString(8).padStart(3, '0')}`, private: (mode & 0o077) === 0 };
}

async function probeTemporal(
  config: CanopyConfig,
  loopHosts: Promise<Map<string, number>>,
): Promise<{
  reachable: boolean;
  pollers: number | null;
  hosts: HostReport[] | null;
  openRuns: Record<string, number> | null;
  error: string | null;
}> {
  let connection: Connection | undefined;
  try {
    const { Client, Connection } = temporalClientSdk();
    connection = await Connection.connect({ address: config.temporalAddress, connectTimeout: LIVE_STATE_CONNECT_TIMEOUT_MS });
    const identities = await pollerIdentities(connection, config.namespace, config.taskQueue, 'workflow');
    const hosts = await describeHosts(connection, config, identities, await loopHosts);
    const client = new Client({ connection, namespace: config.namespace });
    const openRuns = runsPerVersion(await openLoopRuns(client, config.taskQueue));
    return { reachable: true, pollers: identities.length, hosts, openRuns, error: null };
  } catch (error) {
    return { reachable: false, pollers: null, hosts: null, openRuns: null, error: (error as Error).message };
  } finally {
    await connection?.close();
  }
}

/** The hosts the shared queue's workers name, and those loops live on, by id, each with its queue's pollers. */
async function describeHosts(
  connection: WorkflowService,
  config: CanopyConfig,
  identities: string[],
  loopHosts: Map<string, number>,
): Promise<HostReport[]> {
  const named = identities.map(hostOfWorkerIdentity).filter((host) => host !== null);
  const hostIds = [...new Set([...named, ...loopHosts.keys()])].sort();
  return Promise.all(
    hostIds.map(async (hostId) => ({
      host_id: hostId,
      task_queue: hostTaskQueue(config.taskQueue, hostId),
      workers_polling: await countHostPollers(connection, config, hostId),
      loops: loopHosts.get(hostId) ?? 0,
    })),
  );
}

async function probeStore(config: CanopyConfig): Promise<{
  store: DoctorReport['store'];
  loopHosts: Map<string, number>;
  unconfinedLoops: string[];
  notifyFailure: NotifyFailure | null;
}> {
  const options = { url: config.databaseUrl, home: config.home };
  try {
    const db = await openDatabase(options);
    try {
      const unconfinedLoops = (await listLoops(db)).filter((loop) => loop.settings.confine === false).map((loop) => loop.name);
      const store = { location: storeLocation(options), ok: true, error: null };
      return {
        store,
        loopHosts: await loopCountsByHost(db),
        unconfinedLoops,
        notifyFailure: notifyFailureOf(await lastFailedNotification(db)),
      };
    } finally {
      await db.destroy();
    }
  } catch (error) {
    const store = { location: storeLocation(options), ok: false, error: (error as Error).message };
    return { store, loopHosts: new Map(), unconfinedLoops: [], notifyFailure: null };
  }
}

function configReceivers(home: string): DoctorReport['notify']['receivers'] {
  return notifyReceivers(home).map((receiver) => ({
    url: shownUrl(receiver.url),
    format: receiver.format ?? 'json',
    events: receiver.events ?? [...NOTIFY_EVENTS],
  }));
}

function binaryVersion(binary: string): string {
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return (result.stdout || result.stderr || '').trim() || 'unknown';
}

function platformBinaries(home: string): DoctorReport['platforms'] {
  try {
    return [...loadPlatforms(home)].map(([name, platform]) => {
      const command = platformBinary(platform);
      return { name, command, path: findOnPath(command, process.env.PATH ?? '') };
    });
  } catch {
    return [];
  }
}
