// Prometheus metrics of a `canopy worker` on the real dev server: after a loop run, a scrape shows
// the SDK's own worker metrics and canopy's node-run counters with the run's values; a bad address
// is refused naming where it came from.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openContext } from '../../src/client/context';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { freePort } from '../../src/temporal/free-port';
import { WORKFLOW_TASK_SLOTS } from '../../src/worker';
import { childEnv, tempHome, testConfig } from '../helpers/engine';
import { check, linked, loopWithSpecs, scratchDir, spendWhileRunning } from '../helpers/loops';
import { canopySync, spawnCanopy, waitForOutput } from '../helpers/processes';
import { waitUntil } from '../helpers/wait';

const SLOW = { timeout: 120_000 };

/** The value of the one sample of `name` whose labels include every one given. */
function sample(scrape: string, name: string, labels: Record<string, string>): number | undefined {
  const line = scrape
    .split('\n')
    .find((row) => row.startsWith(`${name}{`) && Object.entries(labels).every(([key, value]) => row.includes(`${key}="${value}"`)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('worker metrics', { skip: !process.env.CANOPY_TEST_TEMPORAL_ADDRESS && 'needs the dev server `npm test` starts' }, () => {
  it('serves the SDK’s worker metrics and canopy’s node runs, tokens and cost after a run', SLOW, async () => {
    const config = testConfig(tempHome());
    const address = `127.0.0.1:${await freePort()}`;
    const ctx = await openContext(config);
    const worker = spawnCanopy(['worker', '--metrics', address], childEnv(config));
    try {
      await waitForOutput(worker, /Worker polling/);
      assert.match(worker.output(), new RegExp(`Metrics: http://${address}/metrics`));
      const shape = linked(check('spend', 1, 'sleep 2'), check('passes', 2, 'true'), check('fails', 3, 'exit 4'));
      const loopId = await loopWithSpecs(ctx, scratchDir(), shape, [{ name: 'spec' }]);
      await startLoopRun(ctx, loopId);
      await spendWhileRunning(ctx, loopId, 'spend', 0.25);
      assert.equal((await waitForLoopRun(ctx, loopId)).status, 'failed');

      const scrape = await (await fetch(`http://${address}/metrics`)).text();
      assert.equal(sample(scrape, 'canopy_node_runs_total', { kind: 'check', outcome: 'pass', failure_kind: 'none' }), 2);
      assert.equal(sample(scrape, 'canopy_node_runs_total', { kind: 'check', outcome: 'fail', failure_kind: 'exit_code' }), 1);
      assert.equal(sample(scrape, 'canopy_node_duration_seconds_count', { kind: 'check' }), 3);
      assert.equal(sample(scrape, 'canopy_agent_tokens_total', { platform: 'stand-in', direction: 'input' }), 100);
      assert.equal(sample(scrape, 'canopy_agent_tokens_total', { platform: 'stand-in', direction: 'output' }), 10);
      assert.equal(sample(scrape, 'canopy_agent_cost_microusd_total', { platform: 'stand-in' }), 250_000);
      // The SDK's own: activity task slots and schedule-to-start latency of the worker that ran them.
      assert.match(scrape, /^temporal_worker_task_slots_available\{/m);
      assert.match(scrape, /^temporal_activity_schedule_to_start_latency_count\{/m);
      assert.doesNotMatch(scrape, new RegExp(loopId), 'no loop id as a label');
      // Idle again, every workflow task slot of the shared queue's worker is free: it takes no more than this many at once.
      const workflowSlots = { worker_type: 'WorkflowWorker', task_queue: config.taskQueue };
      assert.equal(sample(scrape, 'temporal_worker_task_slots_available', workflowSlots), WORKFLOW_TASK_SLOTS);

      // The gauges are refreshed every few seconds: loops by status from the store, this host's members from the store and Temporal.
      const gauges = await waitUntil('the loop gauge to count the failed loop', async () => {
        const text = await (await fetch(`http://${address}/metrics`)).text();
        return sample(text, 'canopy_loops', { status: 'failed' }) === 1 ? text : undefined;
      });
      assert.equal(sample(gauges, 'canopy_loops', { status: 'running' }), 0);
      assert.equal(sample(gauges, 'canopy_members', { host: config.hostId, state: 'running' }), 0);
      assert.equal(sample(gauges, 'canopy_members', { host: config.hostId, state: 'queued' }), 0);
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
      await ctx.close();
    }
  });

  it('refuses an address that is not host:port, from the option and from CANOPY_METRICS_ADDRESS', () => {
    const env = childEnv(testConfig(tempHome()));
    const fromOption = canopySync(env, ['worker', '--metrics', 'nine-four-six-four']);
    assert.equal(fromOption.status, 2);
    assert.match(fromOption.stderr, /--metrics 'nine-four-six-four' must be host:port to serve metrics on, e.g. 127\.0\.0\.1:9464/);
    const fromEnv = canopySync({ ...env, CANOPY_METRICS_ADDRESS: 'localhost' }, ['worker']);
    assert.equal(fromEnv.status, 2);
    assert.match(fromEnv.stderr, /CANOPY_METRICS_ADDRESS 'localhost' must be host:port/);
  });
});
