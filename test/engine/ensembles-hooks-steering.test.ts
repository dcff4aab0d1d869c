// Ensembles, the on_completed hook, blockers, queues, autorun, run-time refusals and redaction, on a real dev server.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { scheduleAutorun } from '../../src/client/autorun-service';
import { archiveLoop } from '../../src/client/loops-service';
import { addQueueSpec, createQueue } from '../../src/client/queues-service';
import { continueLoop, pauseLoop, startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { resetLoop } from '../../src/client/reset-service';
import { createSpec } from '../../src/client/specs-service';
import { getLoop as getLoopDetail, updateLoop } from '../../src/client/loops-service';
import { removeNode } from '../../src/client/graph-service';
import { getLoop } from '../../src/store/loops-repository';
import { getQueue } from '../../src/store/queues-repository';
import { getSpec, listSpecs } from '../../src/store/specs-repository';
import { CANOPY_BIN, childEnv, useEngineHarness, withConfigChanges } from '../helpers/engine';
import { agent, check, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';
import { assertRefused } from '../helpers/store';
import { waitUntil } from '../helpers/wait';

describe('ensembles, hooks and steering', () => {
  const h = useEngineHarness();

  it('runs every ensemble member, kills a straggler, and joins them in one quorum document', async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        nodes: [check('prepare', 1, 'echo diff ready'), check('after', 3, 'printf "%s" "{{previous_output}}" | grep -c "^## "')],
        ensembles: [
          {
            name: 'reviewers',
            prompt_template: '@print looks good to {{node_name}}',
            members: [
              { platform: 'fake', model: 'm1' },
              { platform: 'fake', model: 'm2', prompt_override: '@print nope\n@exit 1' },
              { platform: 'fake', model: 'm3', prompt_override: '@sleep 60' },
            ],
            min_pass: 1,
            straggler_timeout_minutes: 0.05,
            timeout_minutes: 1,
            entry_from_node: 'prepare',
            entry_condition: 'pass',
            on_pass_to: 'after',
          },
        ],
      },
      [{ name: 'review' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed', result.reason ?? '');
    const runs = await runsOf(h.ctx, loopId);
    const member = (n: number) => runs.find((r) => r.node_name === `reviewers/member-${n}`)!;
    assert.equal(member(1).outcome, 'pass');
    assert.equal(member(2).failure_kind, 'exit_code');
    assert.equal(member(3).failure_kind, 'straggler');
    const quorum = runs.find((r) => r.node_name === 'reviewers/quorum')!;
    assert.equal(quorum.outcome, 'pass');
    const headings = quorum.stdout.split('\n').filter((line) => line.startsWith('## '));
    assert.deepEqual(headings, ['## fake/m1 [pass]', '## fake/m2 [fail]', '## fake/m3 [fail]']);
    assert.equal(runs.find((r) => r.node_name === 'after')!.stdout.trim(), '3');
  });

  it('starts no more ensemble members at once than config.json’s ensemble_concurrency', async () => {
    await withConfigChanges(h.config.home, { ensemble_concurrency: 1 }, async () => {
      const loopId = await loopWithSpecs(
        h.ctx,
        scratchDir(),
        {
          nodes: [],
          ensembles: [
            {
              name: 'pair',
              prompt_template: '@sleep 0.5\n@print done',
              members: [
                { platform: 'fake', model: 'a' },
                { platform: 'fake', model: 'b' },
              ],
              timeout_minutes: 1,
            },
          ],
        },
        [{ name: 'spec' }],
      );
      assert.equal((await h.withWorker(() => runToEnd(h.ctx, loopId))).status, 'completed');
      const [first, second] = (await runsOf(h.ctx, loopId))
        .filter((r) => r.node_name.startsWith('pair/member-'))
        .sort((a, b) => a.started_at.localeCompare(b.started_at));
      assert.ok(first.ended_at! <= second.started_at, 'the second member started after the first ended');
    });
  });

  it('fires the on_completed hook once per completing run, again after a reset', async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('only', 1, 'true')] }, [
      { name: 'first', content: 'ship the thing' },
    ]);
    await updateLoop(h.ctx, {
      loop_id: loopId,
      on_completed: { platform: 'fake', prompt: '@print hook for {{loop_name}}: {{completed_specs}}' },
    });
    await h.withWorker(async () => {
      await runToEnd(h.ctx, loopId);
      await resetLoop(h.ctx, loopId);
      await runToEnd(h.ctx, loopId);
    });
    const hooks = (await runsOf(h.ctx, loopId)).filter((r) => r.node_name === 'on_completed[0]');
    assert.equal(hooks.length, 2);
    assert.equal(hooks[0].stdout.trim(), 'hook for engine test: first: ship the thing');
  });

  it('stops as blocked after an agent reports a blocker, and continue with skip goes on', async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        nodes: [agent('needs_human', 1, '@block please add the API key\n@print asked'), check('next', 2, 'echo next ran')],
        edges: [{ source: 'needs_human', target: 'next' }],
      },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      await waitUntil('the loop to block', async () => (await getLoop(h.ctx.db, loopId))!.status === 'blocked');
      await waitUntil('the blocked node to end', async () =>
        (await runsOf(h.ctx, loopId)).some((r) => r.node_name === 'needs_human' && r.ended_at),
      );
      assert.deepEqual(
        (await runsOf(h.ctx, loopId)).map((r) => r.node_name),
        ['needs_human'],
      );
      await continueLoop(h.ctx, loopId, 'skip');
      return waitForLoopRun(h.ctx, loopId);
    });
    assert.equal(result.status, 'completed');
    assert.equal((await runsOf(h.ctx, loopId)).find((r) => r.node_name === 'next')!.stdout.trim(), 'next ran');
  });

  it('drains a queue of backlog specs in queue order, leaving membership unchanged', async () => {
    const workdir = scratchDir();
    const loopId = await loopWithSpecs(h.ctx, workdir, { nodes: [check('say', 1, 'echo "{{spec_name}}"')] }, []);
    const queue = await createQueue(h.ctx, { name: `q-${Date.now()}` });
    const second = await createSpec(h.ctx, { name: 'second', workdir });
    const first = await createSpec(h.ctx, { name: 'first', workdir });
    await addQueueSpec(h.ctx, { queue_id: queue.id, spec_id: first.id });
    await addQueueSpec(h.ctx, { queue_id: queue.id, spec_id: second.id });
    const result = await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId, { queueId: queue.id });
      return waitForLoopRun(h.ctx, loopId);
    });
    assert.equal(result.status, 'completed');
    assert.deepEqual(result.completedSpecIds, [first.id, second.id]);
    assert.equal((await getSpec(h.ctx.db, first.id))!.loop_id, null, 'queued specs stay standalone');
    assert.deepEqual((await getQueue(h.ctx.db, queue.id))!.spec_ids, [first.id, second.id]);
  });

  it('resumes a loop at its autorun time through a Temporal Schedule, and cancels one', async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('only', 1, 'true')] }, [{ name: 'later' }]);
    const at = new Date(Date.now() + 2_000).toISOString();
    const scheduled = await scheduleAutorun(h.ctx, loopId, at);
    assert.equal(scheduled.schedule_id, `autorun-${loopId}`);
    await h.withWorker(() =>
      waitUntil('the autorun to complete the loop', async () => (await getLoop(h.ctx.db, loopId))!.status === 'completed', 60_000),
    );
    const cancelled = await scheduleAutorun(h.ctx, loopId, new Date(Date.now() + 3_600_000).toISOString()).then(() =>
      scheduleAutorun(h.ctx, loopId),
    );
    assert.equal(cancelled.at, null);
  });

  it('leaves a pending autorun as it was when a new time is refused, naming the field at', async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('only', 1, 'true')] }, [{ name: 'later' }]);
    const pending = new Date(Date.now() + 3_600_000);
    pending.setUTCMilliseconds(0);
    await scheduleAutorun(h.ctx, loopId, pending.toISOString());
    const handle = (await h.ctx.temporal()).schedule.getHandle(`autorun-${loopId}`);
    const nextRun = async () => (await handle.describe()).info.nextActionTimes[0]?.toISOString();
    assert.equal(await nextRun(), pending.toISOString());

    await assertRefused(scheduleAutorun(h.ctx, loopId, '2101-01-01T00:00:00Z'), {
      code: 'invalid_input',
      field: 'at',
      message: /2000-2100/,
    });
    assert.equal(await nextRun(), pending.toISOString(), 'the pending autorun is untouched');

    const later = new Date(pending.getTime() + 60_000);
    await scheduleAutorun(h.ctx, loopId, later.toISOString());
    assert.equal(await nextRun(), later.toISOString(), 'a new time replaces the pending one in place');
    await scheduleAutorun(h.ctx, loopId);
  });

  it('refuses run-time requests that do not fit the loop’s state, naming what to do', async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('only', 1, 'sleep 2')] }, []);
    await assertRefused(startLoopRun(h.ctx, loopId), { code: 'refused', message: /no pending specs; add one with `canopy spec create/ });
    await assertRefused(pauseLoop(h.ctx, loopId), { code: 'refused', message: /only a running loop can be paused/ });
    await assertRefused(continueLoop(h.ctx, loopId), { code: 'refused', message: /continue applies to paused, blocked or failed loops/ });
    assert.equal((await resetLoop(h.ctx, loopId)).status, 'pending', 'a pending loop resets in place, clearing failure counts');
    await assertRefused(scheduleAutorun(h.ctx, loopId, 'tomorrowish'), {
      code: 'invalid_input',
      message: /at: 'tomorrowish' is not a time/,
    });
    await assertRefused(scheduleAutorun(h.ctx, loopId, '2001-01-01T00:00:00Z'), { code: 'invalid_input', message: /in the past/ });
    await assertRefused(startLoopRun(h.ctx, 'loop_missing'), { code: 'not_found' });
    await createSpec(h.ctx, { loop_id: loopId, name: 'spec' });
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      // Once the run has claimed the loop's only spec, none is pending: the refusal still says the loop runs.
      await waitUntil('the run to claim its spec', async () => (await listSpecs(h.ctx.db, { loopId }))[0].status === 'running');
      await assertRefused(startLoopRun(h.ctx, loopId), { code: 'conflict', message: /already running/ });
      await assertRefused(archiveLoop(h.ctx, loopId), { code: 'refused', message: /pause or stop it/ });
      await waitForLoopRun(h.ctx, loopId);
    });
    await archiveLoop(h.ctx, loopId);
    await resetLoop(h.ctx, loopId);
    await assertRefused(startLoopRun(h.ctx, loopId), { code: 'refused', message: /archived; restore it/ });
  });

  it('fails the loop run, with the reason, when a node it is about to run was deleted mid-run', async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      { nodes: [check('first', 1, 'sleep 1'), check('doomed', 2, 'true')], edges: [{ source: 'first', target: 'doomed' }] },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      await waitUntil('the first node to start', async () => (await runsOf(h.ctx, loopId)).length > 0);
      const doomed = (await getLoopDetail(h.ctx, loopId)).nodes.find((n) => n.name === 'doomed')!;
      await removeNode(h.ctx, { node_id: doomed.id });
      return waitForLoopRun(h.ctx, loopId);
    });
    assert.equal(result.status, 'failed');
    assert.equal(result.failingNode, 'doomed');
    assert.match(result.reason!, /Node 'doomed' no longer exists/);
    assert.equal((await getLoop(h.ctx.db, loopId))!.status, 'failed');
    await assertRefused(continueLoop(h.ctx, loopId), { code: 'refused', message: /without a resume point; reset it/ });
  });

  it('fails an agent node without a platform deterministically, and redacts secrets from run output', async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        nodes: [
          agent('leaky', 1, '@print token=ghp_abcdefghijklmnopqrstuvwxyz0123 API_KEY=hunter2hunter2'),
          { name: 'unplugged', kind: 'agent', position: 2, config: { prompt_template: 'do it' } },
        ],
        edges: [{ source: 'leaky', target: 'unplugged' }],
      },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.failureKind, 'spawn_error');
    assert.match(result.reason!, /no platform; set config.platform with loop_update_node/);
    const leaky = (await runsOf(h.ctx, loopId)).find((r) => r.node_name === 'leaky')!;
    assert.match(leaky.stdout, /ghp_abcdefghijklmnopqrstuvwxyz0123/, 'the store keeps the raw output');
    const cli = (...args: string[]) =>
      JSON.parse(execFileSync(process.execPath, [CANOPY_BIN, ...args, '--json'], { env: childEnv(h.config), encoding: 'utf8' }));
    const listed = cli('loop', 'runs', loopId);
    const shown = cli('loop', 'run-get', leaky.id);
    for (const text of [JSON.stringify(listed), shown.stdout]) {
      assert.doesNotMatch(text, /ghp_abcdefghijklmnopqrstuvwxyz0123|hunter2hunter2/);
      assert.match(text, /\[REDACTED\]/);
    }
    const info = cli('loop', 'info', loopId);
    assert.equal(info.status, 'failed');
    assert.equal(info.last_run.failing_node, 'unplugged');
    assert.deepEqual(
      (await listSpecs(h.ctx.db, { loopId })).map((s) => s.status),
      ['failed'],
    );
  });
});
