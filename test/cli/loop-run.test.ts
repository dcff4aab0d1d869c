// The CLI drives a whole run: import a loop file, add a spec, `loop run --wait`, and its exit code tells the outcome.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { msToTs } from '@temporalio/common/lib/time';
import { childEnv, useEngineHarness } from '../helpers/engine';
import { runsOf, scratchDir } from '../helpers/loops';
import { runCanopy } from '../helpers/processes';
import { waitUntil } from '../helpers/wait';

describe('canopy loop run --wait', () => {
  const h = useEngineHarness();

  async function importedLoop(command: string): Promise<{ env: NodeJS.ProcessEnv; loopId: string }> {
    const env = childEnv(h.config);
    const workdir = scratchDir();
    const file = path.join(workdir, 'loop.json');
    const nodes = [{ name: 'only', kind: 'check', position: 1, config: { command } }];
    writeFileSync(file, JSON.stringify({ format_version: 1, name: 'cli loop', description: '', nodes, edges: [], ensembles: [] }));
    const imported = await runCanopy(env, 'loop', 'import', file, '--workdir', workdir, '--json');
    assert.equal(imported.status, 0, imported.stderr);
    const { loop_id: loopId } = JSON.parse(imported.stdout);
    const spec = await runCanopy(env, 'spec', 'create', '--loop', loopId, '--name', 'first', '--content', 'do it');
    assert.equal(spec.status, 0, spec.stderr);
    return { env, loopId };
  }

  it('exits 0 when the loop completed, with the result as JSON', async () => {
    const { env, loopId } = await importedLoop('echo done');
    const run = await h.withWorker(() => runCanopy(env, 'loop', 'run', loopId, '--wait', '--json'));
    assert.equal(run.status, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.status, 'completed');
    assert.equal(result.workflow_id, `loop-${loopId}`);
    const info = JSON.parse((await runCanopy(env, 'loop', 'info', loopId, '--json')).stdout);
    assert.equal(info.status, 'completed');
    assert.deepEqual(
      info.specs.map((s: { status: string }) => s.status),
      ['completed'],
    );
  });

  it('exits non-zero when the loop failed, naming the node and reason', async () => {
    const { env, loopId } = await importedLoop('exit 4');
    const run = await h.withWorker(() => runCanopy(env, 'loop', 'run', loopId, '--wait'));
    assert.equal(run.status, 1);
    assert.match(run.stdout, /Loop failed at only \[exit_code\]: Command exited with code 4\./);
  });

  it('loop stop ends a running loop so that --wait returns, and loop info then says stopped', async () => {
    const { env, loopId } = await importedLoop('sleep 300');
    await h.withWorker(async () => {
      const run = runCanopy(env, 'loop', 'run', loopId, '--wait');
      await waitUntil('the check to start', async () => (await runsOf(h.ctx, loopId)).some((r) => r.pgid !== null));
      const stop = await runCanopy(env, 'loop', 'stop', loopId);
      assert.equal(stop.status, 0, stop.stderr);
      assert.match(stop.stdout, new RegExp(`Loop ${loopId} stopped \\(workflow cancelled\\); reset it with`));
      assert.notEqual((await run).status, 0);
    });
    const info = JSON.parse((await runCanopy(env, 'loop', 'info', loopId, '--json')).stdout);
    assert.deepEqual([info.status, info.last_run.reason], ['failed', 'stopped']);
    const again = await runCanopy(env, 'loop', 'stop', loopId);
    assert.notEqual(again.status, 0);
    assert.match(again.stderr, /nothing to stop/);
  });

  it('warns when no worker polls the task queue', async () => {
    const { env, loopId } = await importedLoop('true');
    // Temporal lists a stopped worker's pollers for a while, so use a queue no worker ever polled.
    const run = await runCanopy({ ...env, CANOPY_TASK_QUEUE: `unpolled-${loopId}` }, 'loop', 'run', loopId);
    assert.equal(run.status, 0);
    assert.match(run.stderr, /no worker polls task queue 'unpolled-/);
  });

  it("registers canopy's search attributes on a namespace no worker has started against, and starts the run", async () => {
    const { env, loopId } = await importedLoop('true');
    const namespace = `fresh-${loopId}`;
    const { connection } = await h.ctx.temporal();
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    const run = await runCanopy({ ...env, TEMPORAL_NAMESPACE: namespace }, 'loop', 'run', loopId, '--json');
    assert.equal(run.status, 0, run.stderr);
    const listed = async () => {
      const query = `CanopyLoopId = '${loopId}'`;
      const { executions } = await connection.workflowService.listWorkflowExecutions({ namespace, query });
      return executions.map((execution) => execution.execution?.workflowId);
    };
    await waitUntil('the run to be found by its loop id', async () => (await listed()).length > 0);
    assert.deepEqual(await listed(), [`loop-${loopId}`]);
  });
});
