// Host affinity with real `canopy worker` processes: two hosts (one home and store, CANOPY_HOST_ID
// host-a and host-b) on one task queue run each loop's nodes on the loop's own host only; a loop
// whose host has no worker waits, warned of by loop run, loop info, loop_get and doctor, and
// completes once a worker for its host starts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { openContext, type ClientContext } from '../../src/client/context';
import { getLoop, updateLoop } from '../../src/client/loops-service';
import { countHostPollers } from '../../src/client/pollers-service';
import { waitForLoopRun } from '../../src/client/runs-service';
import type { CanopyConfig } from '../../src/config';
import { getSpec, listSpecs } from '../../src/store/specs-repository';
import { childEnv, tempHome, testConfig } from '../helpers/engine';
import { chain, check, loopWithSpecs, runsOf, scratchDir, type LoopShape } from '../helpers/loops';
import { runCanopy, spawnCanopy, waitForOutput, type CanopyProcess } from '../helpers/processes';
import { loopWorkflowId } from '../../src/contract';
import { waitUntil } from '../helpers/wait';
import { callOk, callRefused, connectStdio, type StdioSession } from '../helpers/mcp-client';

/** Checks, an ensemble of two agents joined by a quorum, and a hook: every kind of activity that runs in the workdir. */
const EVERY_WORKDIR_ACTIVITY: LoopShape = {
  nodes: [check('build', 1, 'echo built > built.txt'), check('test', 3, 'test -f built.txt && echo tested')],
  ensembles: [
    {
      name: 'reviewers',
      entry_from_node: 'build',
      entry_condition: 'pass',
      prompt_template: '@print looks fine',
      members: [
        { platform: 'fake', model: 'one' },
        { platform: 'fake', model: 'two' },
      ],
      timeout_minutes: 1,
      on_pass_to: 'test',
    },
  ],
};

describe('host affinity', () => {
  const taskQueue = `test-hosts-${randomBytes(6).toString('hex')}`;
  const home = tempHome();
  const configs: Record<string, CanopyConfig> = {};
  const contexts: Record<string, ClientContext> = {};
  const workers: CanopyProcess[] = [];
  /** Every host's config shares the home (so the store), the server and the task queue. */
  const configOf = (host: string) => (configs[host] ??= testConfig(home, { CANOPY_TASK_QUEUE: taskQueue, CANOPY_HOST_ID: host }));
  async function contextOf(host: string): Promise<ClientContext> {
    return (contexts[host] ??= await openContext(configOf(host)));
  }
  async function startWorker(host: string): Promise<void> {
    const worker = spawnCanopy(['worker'], childEnv(configOf(host)));
    workers.push(worker);
    await waitForOutput(worker, new RegExp(`Worker polling task queue '${taskQueue}' and host ${host}'s '${taskQueue}@${host}'`));
    // Temporal lists a poller once its first poll arrives, a moment after the worker says it polls.
    const { connection } = await (await contextOf(host)).temporal();
    await waitUntil(`${host}'s worker to poll its queue`, async () => (await countHostPollers(connection, configOf(host), host)) > 0);
  }
  /** A loop made on `host`'s machine, so it lives on that host. */
  async function loopOn(host: string, shape: LoopShape, specs = [{ name: 'spec' }]): Promise<string> {
    const loopId = await loopWithSpecs(await contextOf(host), scratchDir(), shape, specs);
    assert.equal((await getLoop(await contextOf(host), loopId)).host, host);
    return loopId;
  }

  before(async () => {
    await Promise.all([startWorker('host-a'), startWorker('host-b')]);
  });
  after(async () => {
    for (const worker of workers) worker.child.kill('SIGKILL');
    await Promise.all(Object.values(contexts).map((ctx) => ctx.close()));
  });

  it('runs every node run of each loop, its hook included, on the loop’s own host', async () => {
    const ctx = await contextOf('host-a');
    const hook = { platform: 'fake', prompt: '@print hooked {{loop_name}}' };
    const loops: Record<string, string> = {};
    for (const host of ['host-a', 'host-b']) {
      loops[host] = await loopOn(host, EVERY_WORKDIR_ACTIVITY, [{ name: 'first' }, { name: 'second' }]);
      await updateLoop(ctx, { loop_id: loops[host], on_completed: hook });
    }
    const started = await Promise.all(Object.values(loops).map((loopId) => runCanopy(childEnv(configOf('host-a')), 'loop', 'run', loopId)));
    for (const run of started) assert.deepEqual([run.status, run.stderr], [0, ''], 'a worker serves each host: no warning');
    for (const [host, loopId] of Object.entries(loops)) {
      const result = await waitForLoopRun(ctx, loopId);
      assert.equal(result.status, 'completed', result.reason ?? '');
      await waitUntil('the hook to end', async () =>
        (await runsOf(ctx, loopId)).some((r) => r.node_name === 'on_completed[0]' && r.ended_at),
      );
      const runs = await runsOf(ctx, loopId);
      const perSpec = ['build', 'reviewers/member-1', 'reviewers/member-2', 'reviewers/quorum', 'test'];
      assert.deepEqual(runs.map((r) => r.node_name).sort(), [...perSpec, ...perSpec, 'on_completed[0]'].sort());
      assert.deepEqual(
        runs.filter((r) => r.executed_host !== host).map((r) => `${r.node_name} ran on ${r.executed_host}`),
        [],
        `every node run of the loop on ${host} ran there`,
      );
      assert.ok(runs.every((r) => r.outcome === 'pass'));
    }
  });

  it('runs a loop with no host (made before hosts) on any worker, as before', async () => {
    const ctx = await contextOf('host-a');
    const loopId = await loopOn('host-a', chain(['one', 'echo one'], ['two', 'echo two']));
    await updateLoop(ctx, { loop_id: loopId, host: null });
    const run = await runCanopy(childEnv(configOf('host-a')), 'loop', 'run', loopId, '--wait');
    assert.equal(run.status, 0, run.stderr);
    const hosts = (await runsOf(ctx, loopId)).map((r) => r.executed_host);
    assert.equal(hosts.length, 2);
    assert.ok(
      hosts.every((host) => host === 'host-a' || host === 'host-b'),
      `ran on ${hosts.join(', ')}`,
    );
  });

  it('lists in doctor the hosts whose workers poll, and a host loops wait on that none serves', async () => {
    const idle = await loopOn('host-a', chain(['only', 'true']));
    await updateLoop(await contextOf('host-a'), { loop_id: idle, host: 'host-idle' });
    const doctor = await runCanopy(childEnv(configOf('host-a')), 'doctor', '--json');
    assert.equal(doctor.status, 0, doctor.stderr);
    const report = JSON.parse(doctor.stdout);
    assert.equal(report.host_id, 'host-a');
    assert.ok(report.workers_polling >= 2, `both workers poll the shared queue: ${report.workers_polling}`);
    const hosts = Object.fromEntries(report.hosts.map((h: any) => [h.host_id, h]));
    assert.deepEqual(Object.keys(hosts).sort(), ['host-a', 'host-b', 'host-idle']);
    for (const host of ['host-a', 'host-b']) {
      assert.equal(hosts[host].task_queue, `${taskQueue}@${host}`);
      assert.ok(hosts[host].workers_polling >= 1, `${host} has its worker`);
    }
    assert.deepEqual(hosts['host-idle'], { host_id: 'host-idle', task_queue: `${taskQueue}@host-idle`, workers_polling: 0, loops: 1 });

    const text = await runCanopy(childEnv(configOf('host-a')), 'doctor');
    assert.match(text.stdout, /^ok host\s+host-a: 1 polling '[^']+@host-a'/m);
    assert.match(text.stdout, /^ok host\s+host-b: 1 polling '[^']+@host-b'/m);
    assert.match(
      text.stdout,
      /^NO host\s+host-idle: no worker polls '[^']+@host-idle', 1 loop\(s\); start one with CANOPY_HOST_ID=host-idle$/m,
    );
  });

  it('keeps a loop whose host has no worker waiting, with warnings, and completes it once a worker for the host starts', async () => {
    const ctx = await contextOf('host-a');
    const loopId = await loopOn('host-c', chain(['first', 'echo one'], ['second', 'echo two']));
    const { name } = await getLoop(ctx, loopId);
    const warning = `no worker serves host 'host-c' of loop '${name}'; its runs wait until a worker with CANOPY_HOST_ID=host-c starts`;

    const run = await runCanopy(childEnv(configOf('host-a')), 'loop', 'run', loopId, '--json');
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, `warning: ${warning}\n`);
    assert.deepEqual(JSON.parse(run.stdout).warnings, [warning]);

    // The run itself waits on host-c's queue: host-a's and host-b's workers do not take its first workflow task.
    const handle = (await ctx.temporal()).workflow.getHandle(loopWorkflowId(loopId));
    assert.equal((await handle.describe()).taskQueue, `${taskQueue}@host-c`);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const events = (await handle.fetchHistory()).events ?? [];
    assert.deepEqual(events.filter((event) => event.workflowTaskStartedEventAttributes).length, 0, 'no worker took the run');
    assert.equal((await listSpecs(ctx.db, { loopId }))[0]?.status, 'pending', 'the spec is not claimed while no worker serves its host');
    assert.deepEqual(await runsOf(ctx, loopId), [], 'no node run starts while no worker serves its host');
    assert.equal((await getLoop(ctx, loopId)).status, 'running');

    const info = await runCanopy(childEnv(configOf('host-a')), 'loop', 'info', loopId);
    assert.equal(info.status, 0, info.stderr);
    assert.match(info.stdout, /^host {5}host-c$/m);
    assert.equal(info.stderr, `warning: ${warning}\n`);
    const infoJson = JSON.parse((await runCanopy(childEnv(configOf('host-a')), 'loop', 'info', loopId, '--json')).stdout);
    assert.deepEqual([infoJson.host, infoJson.warnings], ['host-c', [warning]]);

    const mcp: StdioSession = await connectStdio(childEnv(configOf('host-a')) as Record<string, string>);
    try {
      const got = await callOk(mcp.client, 'loop_get', { loop_id: loopId });
      assert.deepEqual([got.host, got.warnings], ['host-c', [warning]]);
      assert.deepEqual((await callOk(mcp.client, 'loop_info', { loop_id: loopId })).warnings, [warning]);
      assert.match(
        await callRefused(mcp.client, 'loop_update', { loop_id: loopId, host: 'host c' }),
        /is not 1 to 253 letters, digits.*give the CANOPY_HOST_ID of the machine the workdir is on.* at host/,
      );

      await startWorker('host-c');
      const result = await waitForLoopRun(ctx, loopId);
      assert.equal(result.status, 'completed', result.reason ?? '');
      const runs = await runsOf(ctx, loopId);
      assert.deepEqual(
        runs.map((r) => [r.node_name, r.executed_host, r.stdout.trim()]),
        [
          ['first', 'host-c', 'one'],
          ['second', 'host-c', 'two'],
        ],
      );
      assert.equal((await getSpec(ctx.db, (await listSpecs(ctx.db, { loopId }))[0].id))?.status, 'completed');
      assert.deepEqual((await callOk(mcp.client, 'loop_get', { loop_id: loopId })).warnings, [], 'a worker serves host-c now');
    } finally {
      await mcp.client.close();
    }
  });
});
