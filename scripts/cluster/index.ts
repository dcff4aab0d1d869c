// canopy's production shape on this machine: the real Temporal server on PostgreSQL, canopy's store
// on PostgreSQL, and a canopy worker per host, each process on its own so any can be killed alone.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { writeFileConfig } from '../../src/agents/config';
import { missingBinaryMessage, resolveTemporalBinary } from '../../src/temporal/binary';
import { ensureClusterBinaries } from './build';
import { clusterDatabases, databaseEnv, databaseUrl, prepareDatabases, type ClusterDatabases, type PostgresServer } from './databases';
import type { ClusterProcess } from './processes';
import { frontendAddress, pickServerPorts, startTemporalServer, type ServerSettings } from './server';
import { startCanopyWorker, workerLogFile } from './workers';

const DEFAULT_HOSTS = ['host-a', 'host-b'];
/** How long a worker (whose running activities get 10 s to finish) or the server may take to stop before SIGKILL. */
const STOP_GRACE_MS = 15_000;

export interface ClusterOptions {
  /** Where the server log and each worker's home (and log) are kept. */
  stateDir: string;
  postgres: PostgresServer;
  /** The three databases are named <prefix>_temporal, <prefix>_visibility and <prefix>_store. */
  databasePrefix: string;
  hosts?: string[];
  /** Written as config.json into every worker's home, when given. */
  homeConfig?: Record<string, unknown>;
  progress?: (line: string) => void;
}

export interface ClusterTimings {
  /** `go install` of the server and the SQL tool, or null when they were built already. */
  buildMs: number | null;
  databasesMs: number;
  serverMs: number;
  workersMs: number;
}

export interface Cluster {
  temporalAddress: string;
  namespace: string;
  databases: ClusterDatabases;
  /** canopy's store: every worker's and client's CANOPY_DATABASE_URL. */
  databaseUrl: string;
  hosts: string[];
  serverLog: string;
  timings: ClusterTimings;
  homeOf(host: string): string;
  workerLog(host: string): string;
  /** The pid of the host's running worker. */
  workerPid(host: string): number;
  startWorker(host: string): Promise<void>;
  /** SIGKILL, as a crash of that host would end it. */
  killWorker(host: string): Promise<void>;
  startServer(): Promise<void>;
  /** SIGKILL, as a crash of the server's machine would end it. */
  killServer(): Promise<void>;
  /** Stops the workers, then the server. */
  stop(): Promise<void>;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const progress = options.progress ?? (() => undefined);
  const hosts = options.hosts ?? DEFAULT_HOSTS;
  const databases = clusterDatabases(options.databasePrefix);
  const storeUrl = databaseUrl(options.postgres, databases.store);
  const temporalCli = resolveTemporalBinary();
  if (!temporalCli) throw new Error(missingBinaryMessage());
  mkdirSync(options.stateDir, { recursive: true });

  const binaries = ensureClusterBinaries(progress);

  let started = Date.now();
  progress(`Preparing databases ${Object.values(databases).join(', ')}…`);
  await prepareDatabases(binaries.sqlTool, options.postgres, databases);
  const databasesMs = Date.now() - started;

  const settings: ServerSettings = {
    binary: binaries.server,
    temporalCli: temporalCli.path,
    namespace: 'default',
    databaseEnv: databaseEnv(options.postgres, databases),
    portEnv: await pickServerPorts(),
    logFile: path.join(options.stateDir, 'temporal-server.log'),
  };
  const temporalAddress = frontendAddress(settings);
  started = Date.now();
  progress(`Starting the Temporal server on ${temporalAddress}…`);
  let server: ClusterProcess | null = await startTemporalServer(settings);
  const serverMs = Date.now() - started;

  const homeOf = (host: string) => path.join(options.stateDir, host);
  const workers = new Map<string, ClusterProcess>();
  const startWorker = async (host: string) => {
    if (workers.has(host)) throw new Error(`The worker of ${host} is running already.`);
    const home = homeOf(host);
    if (options.homeConfig) {
      mkdirSync(home, { recursive: true, mode: 0o700 });
      writeFileConfig(home, options.homeConfig);
    }
    workers.set(host, await startCanopyWorker({ host, home, temporalAddress, databaseUrl: storeUrl }));
  };
  const runningWorker = (host: string) => {
    const worker = workers.get(host);
    if (!worker) throw new Error(`The worker of ${host} is not running.`);
    return worker;
  };
  const stopWorkers = () => Promise.all([...workers.values()].map((worker) => worker.stop(STOP_GRACE_MS)));

  started = Date.now();
  progress(`Starting canopy workers ${hosts.join(', ')}…`);
  const failed = (await Promise.allSettled(hosts.map(startWorker))).find((outcome) => outcome.status === 'rejected');
  if (failed) {
    await stopWorkers();
    await server.stop(STOP_GRACE_MS);
    throw failed.reason;
  }
  const workersMs = Date.now() - started;

  return {
    temporalAddress,
    namespace: settings.namespace,
    databases,
    databaseUrl: storeUrl,
    hosts,
    serverLog: settings.logFile,
    timings: { buildMs: binaries.buildMs, databasesMs, serverMs, workersMs },
    homeOf,
    workerLog: (host) => workerLogFile(homeOf(host)),
    workerPid: (host) => runningWorker(host).pid,
    startWorker,
    async killWorker(host) {
      const worker = runningWorker(host);
      workers.delete(host);
      await worker.kill();
    },
    async startServer() {
      if (server) throw new Error('The Temporal server is running already.');
      server = await startTemporalServer(settings);
    },
    async killServer() {
      if (!server) throw new Error('The Temporal server is not running.');
      const killed = server;
      server = null;
      await killed.kill();
    },
    async stop() {
      await stopWorkers();
      workers.clear();
      await server?.stop(STOP_GRACE_MS);
      server = null;
    },
  };
}
