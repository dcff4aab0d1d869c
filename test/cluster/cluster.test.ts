// The production shape (`npm run cluster`): the real Temporal server on PostgreSQL, canopy's store on
// PostgreSQL and a `canopy worker` per host. Runs go on through a SIGKILL of the server and of a worker.
// Needs Go (the server is built on first use) and PostgreSQL; `npm run test:cluster` runs it.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { isGroupAlive } from '../../src/activities/process-group';
import { openContext, type ClientContext } from '../../src/client/context';
import { updateLoop } from '../../src/client/loops-service';
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
  const panel = (name: string, from: string, to: string) => ({
    name,
    prompt_template: `@sleep 5\n@print ${name} reviewed by {{node_name}}`,
    members: ['a', 'b', 'c'].map((model) => ({ platform: 'fake', model })),
    timeout_minutes: 2,
    entry_from_node: from,
    entry_condition: 'pass',
    on_pass_to: to,
  });
  return {
    nodes: [check('prepare', 1, 'echo prepared'), check('middle', 3, 'echo middle'), check('finish', 5, 'echo finished')],
    ensembles: [panel('first', 'prepare', 'middle'), panel('second', 'middle', 'finish')],
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
  let ctx: ClientContext;

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
    ctx = await openContext(
      loadConfig({
        CANOPY_HOME: mkdtempSync(path.join(os.tmpdir(), 'canopy-cluster-client-')),
        CANOPY_DATABASE_URL: cluster.databaseUrl,
        TEMPORAL_ADDRESS: cluster.temporalAddress,
        CANOPY_HEARTBEAT_TIMEOUT_SECONDS: '5',
      }),
    );
  });

  after(async () => {
    await ctx?.close();
    await cluster?.stop();
  });

  it('completes every run across a SIGKILL of the Temporal server and of a worker mid-agent, recording each node once', async () => {
    const loopIds = [
      await loopWithSpecs(ctx, scratchDir(), panels(), [{ name: 'one' }]),
      await loopWithSpecs(ctx, scratchDir(), panels(), [{ name: 'two' }]),
    ];
    for (const loopId of loopIds) await startLoopRun(ctx, loopId);

    await runningMember(ctx, loopIds, 'first');
    await cluster.killServer();
    let restarted = Date.now();
    await cluster.startServer();
    console.log(`Temporal server back after SIGKILL in ${seconds(Date.now() - restarted)}`);

    const interrupted = await runningMember(ctx, loopIds, 'second');
    const host = cluster.hosts.find((candidate) => descendsFrom(interrupted.pgid!, cluster.workerPid(candidate)));
    assert.ok(host, `the agent of ${interrupted.node_name} runs under one of the workers`);
    await cluster.killWorker(host);
    assert.ok(isGroupAlive(interrupted.pgid!), 'the agent outlives its killed worker');
    restarted = Date.now();
    await cluster.startWorker(host);
    console.log(`worker ${host} polling again after SIGKILL in ${seconds(Date.now() - restarted)}`);

    for (const loopId of loopIds) {
      const result = await waitForLoopRun(ctx, loopId);
      assert.equal(result.status, 'completed', result.reason ?? '');
      const runs = await runsOf(ctx, loopId);
      assert.deepEqual(runs.map((r) => r.node_name).sort(), EXPECTED_NODES, 'every node ran and is recorded once');
      assert.ok(
        runs.every((r) => r.outcome === 'pass'),
        'every node passed',
      );
    }
    const retried = (await runsOf(ctx, interrupted.loop_id)).find((r) => r.id === interrupted.id)!;
    console.log(`${interrupted.node_name}: ${retried.recovery}`);
    // Its own host's worker adopts the running agent; the other host's, without its run directory, runs it again.
    assert.match(retried.recovery ?? '', /^attempt 2 (adopted process \d+|ran the node again) /, 'a live worker took the agent over');
    assert.equal(retried.stdout.trim(), `second reviewed by ${interrupted.node_name}`);
    assert.ok(!isGroupAlive(interrupted.pgid!), 'nothing of the interrupted attempt runs on');
  });

  it(
    'runs each loop on its own host, and a host’s crash leaves the other host’s loop undisturbed',
    { skip: 'needs host affinity' },
    async () => {
      const loops = await Promise.all(
        cluster.hosts.map(async (host) => {
          const loopId = await loopWithSpecs(ctx, scratchDir(), panels(), [{ name: host }]);
          const pinned = { loop_id: loopId, host };
          await updateLoop(ctx, pinned);
          return { host, loopId };
        }),
      );
      for (const { loopId } of loops) await startLoopRun(ctx, loopId);
      const [crashed, spared] = loops;
      await runningMember(ctx, [crashed.loopId], 'first');
      await cluster.killWorker(crashed.host);
      await cluster.startWorker(crashed.host);

      for (const { host, loopId } of loops) {
        assert.equal((await waitForLoopRun(ctx, loopId)).status, 'completed');
        const runs = await runsOf(ctx, loopId);
        assert.deepEqual(runs.map((r) => r.node_name).sort(), EXPECTED_NODES);
        assert.deepEqual(
          runs.map((r) => (r as { executed_host?: unknown }).executed_host),
          runs.map(() => host),
          `every node of the loop on ${host} ran there`,
        );
      }
      const sparedRuns = await runsOf(ctx, spared.loopId);
      assert.ok(
        sparedRuns.every((r) => r.infra_attempt === 1),
        `the loop on ${spared.host} ran every node once, on its first attempt`,
      );
    },
  );
});
