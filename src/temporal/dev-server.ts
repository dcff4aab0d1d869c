// Starts (or reuses) the embedded Temporal dev server and stops it with its whole process group.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import path from 'node:path';
import { devServerSearchAttributeFlags } from './search-attributes';
import { temporalClientSdk } from './sdk';
import { killProcessGroup } from '../process/process-group';
import { ensurePrivateDirectory, ensurePrivateFile, narrowIfExists, withPrivateUmask } from '../private-files';
import { whenStopped } from '../start-up';

export interface DevServerOptions {
  binary: string;
  /** host:port of the gRPC frontend. */
  address: string;
  /** Web UI port, or null for a headless server. */
  uiPort: number | null;
  /** SQLite file that keeps runs across restarts; omitted means in memory. */
  dbFile?: string;
  /** `PRAGMA=VALUE` settings for that file: DATABASE_PRAGMAS, or SCRATCH_DATABASE_PRAGMAS for one thrown away. */
  sqlitePragmas?: string[];
  /** Server output goes here instead of being discarded. */
  logFile?: string;
  /** The codec server the Web UI decodes payloads through (with its token in the path). */
  uiCodecEndpoint?: string;
  /** Further `KEY=VALUE` dynamic config settings, after canopy's own. */
  dynamicConfig?: string[];
}

export interface DevServer {
  address: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * The server's transfer-queue reader falls back to polling at 20 reads/s once tasks arrive faster
 * than its notifications are served, which turns every step of a fast graph (a chain of quick
 * checks) into ~80 ms of dispatch wait. Canopy's steps are sequential, so let it read freely.
 * Eager activity execution hands a node's activity back to the worker in the reply to the
 * workflow task that scheduled it, instead of through a task-queue round trip.
 * docker/dynamicconfig.yaml holds the same settings for the production shape.
 */
const DEV_SERVER_DYNAMIC_CONFIG = ['history.transferProcessorMaxPollRPS=1000', 'system.enableActivityEagerExecution=true'];

/**
 * For `canopy up`'s server: write-ahead logging commits with one sync instead of the rollback
 * journal's two and lets reads run beside the write, with every commit still synced to disk. A
 * user's step measured 30 ms with the default journal and 22 ms with this (58 node steps/s at 20
 * loops at once instead of 37).
 */
export const DATABASE_PRAGMAS = ['journal_mode=wal'];

/**
 * For a server whose runs are thrown away with it (the tests', the bench's): a file, not memory,
 * because an in-memory database lives only as long as its one connection, and a server starved of
 * CPU can have a query interrupted and that connection closed, after which it answers every call
 * with "Namespace not found" until it is restarted. Write-ahead logging without syncs keeps it as
 * fast as memory; such a file survives the server's crash, not the machine's.
 */
export const SCRATCH_DATABASE_PRAGMAS = [...DATABASE_PRAGMAS, 'synchronous=off'];

export function devServerArgs(options: DevServerOptions): string[] {
  const { host, port } = splitAddress(options.address);
  const args = ['server', 'start-dev', '--ip', host, '--port', String(port), '--log-level', 'warn'];
  args.push(...(options.uiPort === null ? ['--headless'] : ['--ui-port', String(options.uiPort)]));
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  for (const pragma of options.sqlitePragmas ?? []) args.push('--sqlite-pragma', pragma);
  if (options.uiCodecEndpoint && options.uiPort !== null) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  args.push(...devServerSearchAttributeFlags());
  for (const setting of [...DEV_SERVER_DYNAMIC_CONFIG, ...(options.dynamicConfig ?? [])]) args.push('--dynamic-config-value', setting);
  return args;
}

/** Spawns `temporal server start-dev` in its own process group and waits until it answers; a stop while it waits kills it. */
export async function startDevServer(options: DevServerOptions, timeoutMs = 60_000, stop?: AbortSignal): Promise<DevServer> {
  if (options.dbFile) ensurePrivateDirectory(path.dirname(options.dbFile));
  if (options.logFile) ensurePrivateFile(options.logFile);
  const output = options.logFile ? openSync(options.logFile, 'a') : 'ignore';
  // The server creates its database itself (an empty file made beforehand would be taken for a
  // database without tables), so it is started under an owner-only umask instead.
  const child = withPrivateUmask(() =>
    spawn(options.binary, devServerArgs(options), { detached: true, stdio: ['ignore', output, output] }),
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitEnded = new AbortController();
  const ready = waitForTemporal(options.address, timeoutMs, stop ? AbortSignal.any([stop, waitEnded.signal]) : waitEnded.signal);
  const outcome = await Promise.race([ready.then(() => 'ready' as const), exited.then((code) => ({ code })), whenStopped(stop)])
    .catch(async (error: unknown) => {
      await stopGroup(child, exited);
      throw error;
    })
    .finally(() => waitEnded.abort());
  if (outcome !== 'ready') {
    const where = options.logFile ? ` See ${options.logFile}.` : '';
    throw new Error(`temporal server start-dev exited with code ${outcome.code} before answering on ${options.address}.${where}`);
  }
  // A database an older canopy left readable by others.
  if (options.dbFile) for (const file of [options.dbFile, `${options.dbFile}-wal`, `${options.dbFile}-shm`]) narrowIfExists(file);
  return { address: options.address, pid: child.pid!, stop: () => stopGroup(child, exited) };
}

export async function isTemporalReachable(address: string, timeoutMs = 2_000): Promise<boolean> {
  try {
    const connection = await temporalClientSdk().Connection.connect({ address, connectTimeout: timeoutMs });
    try {
      await connection.workflowService.getSystemInfo({});
      return true;
    } finally {
      await connection.close();
    }
  } catch {
    return false;
  }
}

/** Asks until the server answers; throws after `timeoutMs`, or once `stop` is aborted. */
export async function waitForTemporal(address: string, timeoutMs: number, stop?: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await isTemporalReachable(address, 1_000))) {
    stop?.throwIfAborted();
    if (Date.now() > deadline) throw new Error(`Temporal did not answer on ${address} within ${timeoutMs / 1000}s.`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function stopGroup(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await killProcessGroup(child.pid!, exited);
}

export function splitAddress(address: string): { host: string; port: number } {
  const index = address.lastIndexOf(':');
  const port = Number(address.slice(index + 1));
  if (index <= 0 || !Number.isInteger(port)) throw new Error(`Temporal address '${address}' must look like host:port.`);
  return { host: address.slice(0, index), port };
}
