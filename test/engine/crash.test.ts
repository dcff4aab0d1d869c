// Crash safety: a worker killed with SIGKILL mid-node, and a Temporal server restarted mid-run.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { RECOVERY_NOTE } from '../../src/agents/recovery-note';
import { openContext } from '../../src/client/context';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import type { NodeRun } from '../../src/domain/node-run';
import { resolveTemporalBinary } from '../../src/temporal/binary';
import { startDevServer } from '../../src/temporal/dev-server';
import { CANOPY_BIN, childEnv, tempHome, testConfig } from '../helpers/engine';
import { agent, check, loopWithSpecs, runsOf } from '../helpers/loops';
import { freePort } from '../../src/temporal/free-port';
import { spawnCanopy, waitForOutput, type CanopyProcess } from '../helpers/processes';
import { waitUntil } from '../helpers/wait';

const scratch = () => mkdtempSync(path.join(os.tmpdir(), 'canopy-crash-'));

describe('crash safety', () => {
  it('heartbeats from the supervised process: a node that outlasts the heartbeat timeout runs once', async () => {
    const config = testConfig(tempHome());
    const ctx = await openContext(config);
    const worker = spawnCanopy(['worker'], childEnv(config));
    try {
      await waitForOutput(worker, /Worker polling/);
      const loopId = await loopWithSpecs(ctx, scratch(), { nodes: [check('slow', 1, 'sleep 6; echo slept')] }, [{ name: 'spec' }]);
      await startLoopRun(ctx, loopId);
      assert.equal((await waitForLoopRun(ctx, loopId)).status, 'completed');
      const [run] = await runsOf(ctx, loopId);
      assert.deepEqual([run.infra_attempt, run.activity_attempt, run.recovery, run.stdout.trim()], [1, 1, null, 'slept']);
    } finally {
      worker.child.kill('SIGKILL');
      await ctx.close();
    }
  });

  /**
   * Runs an agent that reports after 20 s, does `interrupt` to its worker once the agent has started, and
   * checks that the agent ran once and the retry adopted it: output complete, recorded once.
   */
  async function adoptsTheAgentAfter(
    interrupt: (worker: CanopyProcess, startWorker: () => CanopyProcess) => Promise<CanopyProcess | null>,
  ): Promise<NodeRun> {
    const home = tempHome();
    const config = testConfig(home);
    const workdir = scratch();
    // In the workdir: a confined agent's /tmp is its own.
    const pids = path.join(workdir, 'pids');
    // It reports after its worker is gone: to the address that worker gave it, which the next one takes over.
    const report = `"${process.execPath}" "${CANOPY_BIN}" node complete --status pass --output reported-after-adoption`;
    const script = `echo $$ >> "${pids}"; echo "started $$"; sleep 20; ${report}; echo "finished $$"`;
    writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({ platforms: { sleeper: { argv: ['bash', '-c', script, 'sleeper', '{{prompt}}'] } } }),
    );
    const ctx = await openContext(config);
    const startWorker = () => spawnCanopy(['worker'], childEnv(config));
    const workers = [startWorker()];
    try {
      await waitForOutput(workers[0], /Worker polling/);
      const loopId = await loopWithSpecs(
        ctx,
        workdir,
        {
          nodes: [agent('long', 1, 'work', { platform: 'sleeper' }), check('after', 2, 'true')],
          edges: [{ source: 'long', target: 'after' }],
        },
        [{ name: 'spec' }],
      );
      await startLoopRun(ctx, loopId);
      await waitUntil('the agent to start', () => Promise.resolve(existsSync(pids)));
      const next = await interrupt(workers[0], startWorker);
      if (next) workers.push(next);
      const result = await waitForLoopRun(ctx, loopId);

      assert.equal(result.status, 'completed');
      const started = readFileSync(pids, 'utf8').trim().split('\n');
      assert.equal(started.length, 1, 'the agent started once');
      const long = (await runsOf(ctx, loopId)).filter((r) => r.node_name === 'long');
      assert.equal(long.length, 1, 'the execution is recorded once');
      assert.deepEqual([long[0].outcome, long[0].infra_attempt, long[0].attempts.length], ['pass', 1, 0]);
      assert.equal(
        long[0].stdout.trim(),
        `started ${started[0]}\nReported pass for long (${long[0].id}).\nfinished ${started[0]}`,
        'the output is complete',
      );
      assert.equal(long[0].reported_output, 'reported-after-adoption');
      assert.ok(!existsSync(path.join(home, 'runs', long[0].id)), 'the run directory is removed once the run is recorded');
      return long[0];
    } finally {
      for (const worker of workers) worker.child.kill('SIGKILL');
      await ctx.close();
    }
  }

  it('adopts a running agent after its worker is killed: one process from start to end, output complete, recorded once', async () => {
    const run = await adoptsTheAgentAfter(async (worker, startWorker) => {
      worker.child.kill('SIGKILL');
      await worker.exited;
      return startWorker();
    });
    assert.equal(run.activity_attempt, 2);
    assert.match(
      run.recovery ?? '',
      /^activity attempt 2 adopted process \d+ of activity attempt 1, whose worker was lost \(it was still running\)$/,
    );
  });

  it('leaves the agent of a worker that missed its heartbeats running, for the retry to adopt', { timeout: 180_000 }, async () => {
    // Stopped past its 3 s heartbeat timeout, as a starved or suspended machine stops it: the attempt times out.
    const run = await adoptsTheAgentAfter(async (worker) => {
      worker.child.kill('SIGSTOP');
      await new Promise((resolve) => setTimeout(resolve, 8_000));
      worker.child.kill('SIGCONT');
      return null;
    });
    // Attempts that reached the stopped worker's poll while it slept time out too: each hands the process on.
    assert.ok(run.activity_attempt >= 2, `activity attempt ${run.activity_attempt}`);
    assert.match(
      run.recovery ?? '',
      /^activity attempt \d+ adopted process \d+ of activity attempt \d+, whose worker was lost \(it was still running\)$/,
    );
  });

  it('takes the recorded outcome of a check that ended while no worker watched it', async () => {
    const home = tempHome();
    const config = testConfig(home);
    const ctx = await openContext(config);
    const workers = [spawnCanopy(['worker'], childEnv(config))];
    try {
      await waitForOutput(workers[0], /Worker polling/);
      const loopId = await loopWithSpecs(ctx, scratch(), { nodes: [check('short', 1, 'sleep 2; echo done; exit 3')] }, [{ name: 'spec' }]);
      await startLoopRun(ctx, loopId);
      const first = await waitUntil('the check to start', async () => (await runsOf(ctx, loopId)).find((r) => r.pgid !== null));
      workers[0].child.kill('SIGKILL');
      await workers[0].exited;
      await waitUntil('the check to record its exit', () => Promise.resolve(existsSync(path.join(home, 'runs', first.id, 'exit'))));
      workers.push(spawnCanopy(['worker'], childEnv(config)));
      const result = await waitForLoopRun(ctx, loopId);

      assert.equal(result.status, 'failed');
      const [run] = await runsOf(ctx, loopId);
      assert.deepEqual([run.id, run.exit_code, run.failure_kind, run.stdout.trim()], [first.id, 3, 'exit_code', 'done']);
      assert.match(run.recovery ?? '', /it had ended and recorded its exit status/);
    } finally {
      for (const worker of workers) worker.child.kill('SIGKILL');
      await ctx.close();
    }
  });

  it('runs the node again, clean and with the reason, when its process died with the machine', async () => {
    const home = tempHome();
    const config = testConfig(home);
    // The first attempt reports pass and hangs; the retry (the marker file exists) prints its prompt's first line and fails
    // its work: exit 1 with output, no report.
    const script = `if [ -e attempted ]; then printf '%s\\n' "$1" | head -n 1; echo no luck; exit 1; fi; touch attempted; "${process.execPath}" "${CANOPY_BIN}" node complete --status pass --output first && sleep 300`;
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
      const reported = await waitUntil('the first attempt to report pass', async () =>
        (await runsOf(ctx, loopId)).find((r) => r.reported_status === 'pass'),
      );
      // A machine restart takes the worker and the supervised process group with it.
      workers[0].child.kill('SIGKILL');
      process.kill(-reported.pgid!, 'SIGKILL');
      await workers[0].exited;
      workers.push(spawnCanopy(['worker'], childEnv(config)));

      const result = await waitForLoopRun(ctx, loopId);
      assert.equal(result.status, 'failed');
      const [run] = await runsOf(ctx, loopId);
      assert.deepEqual(
        [run.outcome, run.failure_kind, run.infra_attempt, run.activity_attempt, run.reported_status],
        ['fail', 'exit_code', 1, 2, null],
      );
      assert.deepEqual(
        run.attempts.map((a) => [a.infra_attempt, a.activity_attempt, a.status, a.reported_status, a.reported_output]),
        [[1, 1, 'running', 'pass', 'first']],
        'the dead attempt is kept in the attempt history',
      );
      assert.match(
        run.recovery ?? '',
        /^activity attempt 2 ran the node again after activity attempt 1's worker was lost: its process \(pid \d+\) ended without recording an exit status/,
      );
      assert.equal(run.stdout.split('\n')[0], `[canopy] ${RECOVERY_NOTE}`, 'the rerun agent is told its earlier attempt was interrupted');
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
