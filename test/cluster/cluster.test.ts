// The production shape (`npm run cluster`): the real Temporal server on PostgreSQL, canopy's store on
// PostgreSQL and a `canopy worker` per host. Runs go on through a SIGKILL of the server and of a
// host's worker, each loop on its own host.
// Needs Go (the server is built on first use) and PostgreSQL; `npm run test:cluster` runs it.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { isGroupAlive } from '../../src/process/process-group';
import { openContext, type ClientContext } from '../../src/client/context';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { loadConfig } from '../../src/config';
import type { NodeRun } from '../../src/domain/node-run';
import {
  clusterDatabases,
  clusterPostgres,
  databaseUrl,
  type ClusterDatabases,
  type PostgresServer,
} from '../../scripts/cluster/databases';
import { startCluster, type Cluster } from '../../scripts/cluster/index';
import { FAKE_AGENT } from '../helpers/engine';
import { check, loopWithSpecs, runsOf, scratchDir, type LoopShape } from '../helpers/loops';
import { descendsFrom } from '../helpers/processes';
import { waitUntil } from '../helpers/wait';

const DATABASE_PREFIX = 'canopy_cluster_test';
const RUN_MS = 300_000;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/** Two panels of three agents, each member a few seconds long, with checks before, between and after. */
function panels(): LoopShape {
  const panel = (name: string, from: string, to: string, seconds: number) => ({
    name,
    prompt_template: `@sleep ${seconds}\n@print ${name} reviewed by {{node_name}}`,
    members: ['a', 'b', 'c'].map((model) => ({ platform: 'fake', model })),
    timeout_minutes: 2,
    entry_from_node: from,
    entry_condition: 'pass',
    on_pass_to: to,
  });
  return {
    nodes: [check('prepare', 1, 'echo prepared'), check('middle', 3, 'echo middle'), check('finish', 5, 'echo finished')],
    // The second panel's agents outlast the heartbeat timeout that retries a killed worker's
    // activity, so the agent interrupted there is usually still running when the retry adopts it.
    ensembles: [panel('first', 'prepare', 'middle', 5), panel('second', 'middle', 'finish', 10)],
  };
}

const EXPECTED_NODES = [
  'finish',
  'first/member-1',
  'first/member-2',
  'first/member-3',
  'first/quorum',
  'middle',
  'prepare',
  'second/member-1',
  'second/member-2',
  'second/member-3',
  'second/quorum',
];

/** A member of `panel` whose agent runs now, in one of the loops. */
async function runningMember(ctx: ClientContext, loopIds: string[], panel: string): Promise<NodeRun> {
  return waitUntil(
    `an agent of ${panel} to run`,
    async () => {
      for (const loopId of loopIds) {
        const running = (await runsOf(ctx, loopId)).find(
          (r) => r.node_name.startsWith(`${panel}/member-`) && r.status === 'running' && r.pgid,
        );
        if (running) return running;
      }
      return null;
    },
    RUN_MS,
  );
}

async function dropDatabases(server: PostgresServer, databases: ClusterDatabases): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl(server, 'postgres') });
  await client.connect();
  try {
    for (const name of Object.values(databases)) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

describe('the production shape: Temporal server and canopy store on PostgreSQL, a worker per host', () => {
  let cluster: Cluster;
  /** A client on each host's machine: the loops it makes live on that host. */
  const contexts: Record<string, ClientContext> = {};
  const anyContext = () => Object.values(contexts)[0];

  /** A loop per host, each started. */
  async function startLoopPerHost(): Promise<Record<string, string>> {
    const loops: Record<string, string> = {};
    for (const host of cluster.hosts) {
      loops[host] = await loopWithSpecs(contexts[host], scratchDir(), panels(), [{ name: host }]);
      await startLoopRun(contexts[host], loops[host]);
    }
    return loops;
  }

  /** Waits for the loop to complete and checks that every node ran, passed, and is recorded once. */
  async function completedRuns(loopId: string): Promise<NodeRun[]> {
    const result = await waitForLoopRun(anyContext(), loopId);
    assert.equal(result.status, 'completed', result.reason ?? '');
    const runs = await runsOf(anyContext(), loopId);
    assert.deepEqual(runs.map((r) => r.node_name).sort(), EXPECTED_NODES, 'every node ran and is recorded once');
    assert.deepEqual(
      runs.filter((r) => r.outcome !== 'pass').map((r) => r.node_name),
      [],
      'every node passed',
    );
    return runs;
  }

  before(async () => {
    const postgres = clusterPostgres();
    await dropDatabases(postgres, clusterDatabases(DATABASE_PREFIX));
    cluster = await startCluster({
      stateDir: mkdtempSync(path.join(os.tmpdir(), 'canopy-cluster-')),
      postgres,
      databasePrefix: DATABASE_PREFIX,
      homeConfig: { platforms: { fake: { argv: [process.execPath, FAKE_AGENT, '{{prompt}}'] } } },
      progress: (line) => console.log(line),
    });
    const { buildMs, databasesMs, serverMs, workersMs } = cluster.timings;
    console.log(
      `cluster up in ${seconds(databasesMs + serverMs + workersMs)}: databases ${seconds(databasesMs)}, server ${seconds(serverMs)}, ` +
        `workers ${seconds(workersMs)}; server build ${buildMs === null ? 'already there' : seconds(buildMs)}`,
    );
    for (const host of cluster.hosts) {
      contexts[host] = await openContext(
        loadConfig({
          CANOPY_HOME: mkdtempSync(path.join(os.tmpdir(), 'canopy-cluster-client-')),
          CANOPY_DATABASE_URL: cluster.databaseUrl,
          TEMPORAL_ADDRESS: cluster.temporalAddress,
          CANOPY_HOST_ID: host,
          CANOPY_HEARTBEAT_TIMEOUT_SECONDS: '5',
        }),
      );
    }
  });

  after(async () => {
    for (const ctx of Object.values(contexts)) await ctx.close();
    await cluster?.stop();
  });

  it('completes every run across a SIGKILL of the Temporal server mid-ensemble, recording each node once', async () => {
    const loops = await startLoopPerHost();
    await runningMember(anyContext(), Object.values(loops), 'first');
    await cluster.killServer();
    const restarted = Date.now();
    await cluster.startServer();
    console.log(`Temporal server back after SIGKILL in ${seconds(Date.now() - restarted)}`);
    for (const loopId of Object.values(loops)) await completedRuns(loopId);
  });

  it('runs each loop on its own host; a SIGKILL of one host’s worker mid-agent leaves the other host’s loop undisturbed', async () => {
    const loops = await startLoopPerHost();
    const [crashed, spared] = cluster.hosts;
    const interrupted = await runningMember(anyContext(), [loops[crashed]], 'second');
    assert.ok(descendsFrom(interrupted.pgid!, cluster.workerPid(crashed)), `the agent of ${crashed}'s loop runs under ${crashed}'s worker`);
    await cluster.killWorker(crashed);
    assert.ok(isGroupAlive(interrupted.pgid!), 'the agent outlives its killed worker');
    const restarted = Date.now();
    await cluster.startWorker(crashed);
    console.log(`worker ${crashed} polling again after SIGKILL in ${seconds(Date.now() - restarted)}`);

    for (const host of cluster.hosts) {
      const runs = await completedRuns(loops[host]);
      assert.deepEqual(
        runs.filter((r) => r.executed_host !== host).map((r) => `${r.node_name} on ${r.executed_host}`),
        [],
        `every node of ${host}'s loop ran on ${host}`,
      );
    }
    const adopted = (await runsOf(anyContext(), loops[crashed])).find((r) => r.id === interrupted.id)!;
    console.log(`${interrupted.node_name}: ${adopted.recovery}`);
    assert.match(
      adopted.recovery ?? '',
      /^activity attempt 2 adopted process \d+ of activity attempt 1, whose worker was lost/,
      `${crashed}'s restarted worker took over the running agent`,
    );
    assert.equal(adopted.stdout.trim(), `second reviewed by ${interrupted.node_name}`);
    assert.ok(!isGroupAlive(interrupted.pgid!), 'the adopted agent has ended');
    assert.deepEqual(
      (await runsOf(anyContext(), loops[spared]))
        .filter((r) => r.infra_attempt !== 1 || r.activity_attempt !== 1 || r.recovery)
        .map((r) => r.node_name),
      [],
      `every node of ${spared}'s loop ran once, on its first attempt`,
    );
  });
});
