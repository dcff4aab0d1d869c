// A worker refuses to start while open loop runs were started by a canopy whose workflow code it no
// longer replays: taking their tasks would fail every one. `canopy doctor` lists open runs per version.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hostTaskQueue, loopWorkflowId, REPLAYS_FROM, type LoopRunInput } from '../../src/contract';
import { packageVersion } from '../../src/project';
import { VERSION_KEY } from '../../src/temporal/search-attributes';
import { freePort } from '../../src/temporal/free-port';
import { childEnv, engineHarness, type EngineHarness } from '../helpers/engine';
import { runCanopy, spawnCanopy, waitForOutput } from '../helpers/processes';
import { waitUntil } from '../helpers/wait';

describe('open runs of a version this worker cannot replay', () => {
  let h: EngineHarness;
  const started: string[] = [];

  /**
   * Starts a loop run no worker takes, recorded as started by `version` (none: started before runs
   * recorded one), on the shared queue or on a host's.
   */
  async function openRun(name: string, version: string | null, host: string | null = null): Promise<string> {
    const client = await h.ctx.temporal();
    const workflowId = loopWorkflowId(`${name}-${Date.now()}`);
    const input: LoopRunInput = { loopId: name, engine: { heartbeatTimeoutSeconds: 3, ensembleConcurrency: 4 } };
    await client.workflow.start('loopRunWorkflow', {
      taskQueue: host ? hostTaskQueue(h.config.taskQueue, host) : h.config.taskQueue,
      workflowId,
      args: [input],
      typedSearchAttributes: version ? [{ key: VERSION_KEY, value: version }] : [],
    });
    started.push(workflowId);
    return workflowId;
  }

  before(async () => {
    h = await engineHarness();
  });
  after(async () => {
    const client = await h.ctx.temporal();
    await Promise.all(
      started.map((id) =>
        client.workflow
          .getHandle(id)
          .terminate('test over')
          .catch(() => undefined),
      ),
    );
    await h.close();
  });

  it('canopy up refuses, naming each run and what to do, and starts nothing', async () => {
    const old = await openRun('old', '0.1.0');
    const onHost = await openRun('old-on-host', '0.1.0', 'build-9');
    const unrecorded = await openRun('unrecorded', null);
    const env = { ...childEnv(h.config), CANOPY_MCP_PORT: String(await freePort()) };
    await waitUntil('the open runs to be listed', async () => {
      const { stdout } = await runCanopy(env, 'doctor', '--json');
      return (JSON.parse(stdout) as { open_runs_per_version: Record<string, number> | null }).open_runs_per_version?.unrecorded === 1;
    });
    const up = spawnCanopy(['up'], env);
    const cameUp = waitForOutput(up, /canopy is up/).then(
      () => true,
      () => false,
    );
    if (await Promise.race([cameUp, up.exited.then(() => false)])) {
      up.child.kill('SIGINT');
      await up.exited;
      assert.fail(`canopy up started beside runs it cannot replay:\n${up.output()}`);
    }
    assert.notEqual(await up.exited, 0, up.output());
    const said = up.output();
    for (const run of [old, onHost]) assert.match(said, new RegExp(`${run} \\(run [^)]*started by canopy 0\\.1\\.0\\)`));
    assert.match(said, new RegExp(`${unrecorded} \\(run [^)]*started by a canopy older than ${REPLAYS_FROM.replace(/\./g, '\\.')}\\)`));
    assert.match(said, /Finish them, or stop them .* with the canopy version that started them/);
    assert.doesNotMatch(said, /canopy is up/);
    const client = await h.ctx.temporal();
    const { pollers } = await client.workflowService.describeTaskQueue({
      namespace: h.config.namespace,
      taskQueue: { name: h.config.taskQueue },
      taskQueueType: 1,
    });
    assert.equal(pollers?.length ?? 0, 0, 'no worker polled the task queue');
  });

  it('canopy doctor lists the open runs per version that started them', async () => {
    await openRun('current', packageVersion());
    const env = childEnv(h.config);
    const report = await waitUntil('doctor to list the current version', async () => {
      const { stdout } = await runCanopy(env, 'doctor', '--json');
      const parsed = JSON.parse(stdout) as { open_runs_per_version: Record<string, number> | null };
      return parsed.open_runs_per_version?.[packageVersion()] === 1 ? parsed : null;
    });
    assert.deepEqual(report.open_runs_per_version, { '0.1.0': 2, unrecorded: 1, [packageVersion()]: 1 });
    const { stdout } = await runCanopy(env, 'doctor');
    assert.match(stdout, /NO open runs .*0\.1\.0: 2 \(not replayable here\)/);
  });
});
