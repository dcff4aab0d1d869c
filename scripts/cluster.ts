// `npm run cluster [up]`: canopy's production shape on this machine, in the foreground until Ctrl-C.
// Builds the Temporal server if needed, prepares its PostgreSQL databases and canopy's store, starts
// the server and a canopy worker for host-a and host-b, and prints how to reach them.
import path from 'node:path';
import { PROJECT_ROOT } from '../src/project';
import { TEMPORAL_SERVER_VERSION } from './cluster/build';
import { clusterPostgres } from './cluster/databases';
import { startCluster, type Cluster } from './cluster/index';

const STATE_DIR = path.join(PROJECT_ROOT, '.cluster');
const DATABASE_PREFIX = 'canopy_cluster';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

function describe(cluster: Cluster): string {
  const { buildMs, databasesMs, serverMs, workersMs } = cluster.timings;
  const relative = (file: string) => path.relative(process.cwd(), file) || '.';
  return [
    '',
    `Temporal server ${TEMPORAL_SERVER_VERSION}   ${cluster.temporalAddress}   namespace ${cluster.namespace}   log ${relative(cluster.serverLog)}`,
    `  stores on PostgreSQL: ${cluster.databases.temporal}, ${cluster.databases.visibility}`,
    `canopy store   ${cluster.databaseUrl}`,
    ...cluster.hosts.map(
      (host) => `canopy worker  ${host}   CANOPY_HOME=${relative(cluster.homeOf(host))}   log ${relative(cluster.workerLog(host))}`,
    ),
    '',
    `From another shell, point canopy and the Temporal CLI at it, as if on ${cluster.hosts[0]}'s machine (its loops run there):`,
    `  export TEMPORAL_ADDRESS=${cluster.temporalAddress} CANOPY_DATABASE_URL=${cluster.databaseUrl} CANOPY_HOST_ID=${cluster.hosts[0]}`,
    '  ./bin/canopy.js loop import examples/demo-loop.json --workdir <a git repository>   # then `loop run`, `loop watch`',
    '  .tools/bin/temporal workflow list --address $TEMPORAL_ADDRESS',
    '',
    `Ready in ${seconds(databasesMs + serverMs + workersMs)}: databases ${seconds(databasesMs)}, server ${seconds(serverMs)}, ` +
      `workers ${seconds(workersMs)}${buildMs === null ? '' : `, after building the server in ${seconds(buildMs)}`}.`,
    'Ctrl-C stops the workers, then the server; the databases keep every run for the next `npm run cluster`.',
  ].join('\n');
}

async function up(): Promise<void> {
  // Caught from the start: a Ctrl-C while the cluster starts stops it once it has started, instead
  // of leaving its processes (each in a group of its own) running.
  const stopRequested = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const cluster = await startCluster({
    stateDir: STATE_DIR,
    postgres: clusterPostgres(),
    databasePrefix: DATABASE_PREFIX,
    progress: (line) => console.log(line),
  });
  console.log(describe(cluster));
  await stopRequested;
  console.log('Stopping…');
  await cluster.stop();
  console.log('Stopped.');
}

const command = process.argv[2] ?? 'up';
if (command === 'up') {
  up().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
} else {
  console.error(`npm run cluster: unknown command '${command}'; the one command is \`up\` (the default).`);
  process.exitCode = 2;
}
