// Crash safety: a worker killed with SIGKILL mid-node, and a Temporal server restarted mid-run.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { isGroupAlive } from '../../src/activities/process-group';
import { openContext } from '../../src/client/context';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { resolveTemporalBinary } from '../../src/temporal/binary';
import { startDevServer } from '../../src/temporal/dev-server';
import { CANOPY_BIN, childEnv, tempHome, testConfig } from '../helpers/engine';
import { agent, check, loopWithSpecs, runsOf } from '../helpers/loops';
import { freePort } from '../../src/temporal/free-port';
import { spawnCanopy, waitForOutput } from '../helpers/processes';
import { waitUntil } from '../helpers/wait';

const scratch = () => mkdtempSync(path.join(os.tmpdir(), 'canopy-crash-'));

describe('crash safety', () => {
  it('resumes a node on a new worker after SIGKILL, recording it once and killing the orphaned process group', async () => {
    const config = testConfig(tempHome());
    const ctx = await openContext(config);
    const workers = [spawnCanopy(['worker'], childEnv(config))];
    try {
      await waitForOutput(workers[0], /Worker polling/);
      const loopId = await loopWithSpecs(
        ctx,
        scratch(),
        {
          nodes: [agent('long', 1, '@spawn-sleeper 300\n@sleep 3\n@print finished'), check('after', 2, 'true')],
          edges: [{ source: 'long', target: 'after' }],
        },
        [{ name: 'spec' }],
      );
      await startLoopRun(ctx, loopId);
      const firstAttempt = await waitUntil('the agent to start', async () => (await runsOf(ctx, loopId)).find((r) => r.pgid !== null));
      const orphanGroup = firstAttempt.pgid!;

      workers[0].child.kill('SIGKILL');
      await workers[0].exited;
      assert.ok(isGroupAlive(orphanGroup), 'the agent outlives its killed worker');

      workers.push(spawnCanopy(['worker'], childEnv(config)));
      const result = await waitForLoopRun(ctx, loopId);

      assert.equal(result.status, 'completed');
      const runs = await runsOf(ctx, loopId);
      const long = runs.filter((r) => r.node_name === 'long');
      assert.equal(long.length, 1, 'the execution is recorded once');
      assert.equal(long[0].infra_attempt, 2);
      assert.equal(long[0].outcome, 'pass');
      assert.equal(long[0].stdout.trim(), 'finished');
      assert.ok(!isGroupAlive(orphanGroup), 'the first attempt’s process group was killed');
    } finally {
      for (const worker of workers) worker.child.kill('SIGKILL');
      await ctx.close();
    }
  });

  it('starts a retry clean: a report from the attempt that died does not decide the node', async () => {
    const home = tempHome();
    const config = testConfig(home);
    // The first attempt reports pass and hangs; the retry (the marker file exists) exits 1 without reporting.
    const script = `if [ -e attempted ]; then exit 1; fi; touch attempted; "${process.execPath}" "${CANOPY_BIN}" node complete --status pass --output first && sleep 300`;
    writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({ platforms: { flaky: { argv: ['bash', '-c', script, 'flaky', '{{prompt}}'] } } }),
    );
    const ctx = await openContext(config);
    const workers = [spawnCanopy(['worker'], childEnv(config))];
    try {
      await waitForOutput(workers[0], /Worker polling/);
      const loopId = await loopWithSpecs(ctx, scratch(), { nodes: [agent('flaky', 1, 'work', { platform: 'flaky' })] }, [{ name: 'spec' }]);
      await startLoopRun(ctx, loopId);
      await waitUntil('the first attempt to report pass', async () =>
        (await runsOf(ctx, loopId)).some((r) => r.reported_status === 'pass'),
      );
      workers[0].child.kill('SIGKILL');
      await workers[0].exited;
      workers.push(spawnCanopy(['worker'], childEnv(config)));

      const result = await waitForLoopRun(ctx, loopId);
      assert.equal(result.status, 'failed');
      const [run] = await runsOf(ctx, loopId);
      assert.deepEqual([run.outcome, run.failure_kind, run.infra_attempt, run.reported_status], ['fail', 'exit_code', 2, null]);
      assert.deepEqual(
        run.attempts.map((a) => [a.infra_attempt, a.status, a.reported_status, a.reported_output]),
        [[1, 'running', 'pass', 'first']],
        'the dead attempt is kept in the attempt history',
      );
    } finally {
      for (const worker of workers) worker.child.kill('SIGKILL');
      await ctx.close();
    }
  });

  it('completes a run across a restart of the Temporal dev server on the same database file', async () => {
    const binary = resolveTemporalBinary()!;
    const address = `127.0.0.1:${await freePort()}`;
    const home = tempHome();
    const serverOptions = { binary: binary.path, address, uiPort: null, dbFile: path.join(home, 'temporal.db') };
    let server = await startDevServer(serverOptions);
    const config = testConfig(home, { TEMPORAL_ADDRESS: address });
    const ctx = await openContext(config);
    const worker = spawnCanopy(['worker'], childEnv(config));
    try {
      await waitForOutput(worker, /Worker polling/);
      const loopId = await loopWithSpecs(
        ctx,
        scratch(),
        {
          nodes: [check('slow', 1, 'sleep 3; echo slow done'), check('after', 2, 'echo after')],
          edges: [{ source: 'slow', target: 'after' }],
        },
        [{ name: 'spec' }],
      );
      await startLoopRun(ctx, loopId);
      await waitUntil('the slow node to start', async () => (await runsOf(ctx, loopId)).some((r) => r.node_name === 'slow'));
      await server.stop();
      server = await startDevServer(serverOptions);
      const result = await waitForLoopRun(ctx, loopId);
      assert.equal(result.status, 'completed');
      const runs = await runsOf(ctx, loopId);
      assert.deepEqual(runs.map((r) => r.node_name).sort(), ['after', 'slow']);
    } finally {
      worker.child.kill('SIGKILL');
      await ctx.close();
      await server.stop();
    }
  });
});
