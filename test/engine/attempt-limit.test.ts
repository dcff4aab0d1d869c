// spec_attempt_limit on the dev server: a spec that failed that many runs blocks the loop instead of
// running again, until `loop reset --specs` gives it new attempts; and the refusals around it.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loopStatus } from '../../src/client/loop-status-service';
import { createLoop, updateLoop } from '../../src/client/loops-service';
import { updateSpec } from '../../src/client/specs-service';
import { resetLoop } from '../../src/client/reset-service';
import { continueLoop, startLoopRun, stopLoop, waitForLoopRun } from '../../src/client/runs-service';
import { getLoop } from '../../src/store/loops-repository';
import { listSpecs } from '../../src/store/specs-repository';
import { useEngineHarness, type EngineHarness } from '../helpers/engine';
import { check, loopWithSpecs, runsOf, runToEnd, scratchDir, untilLoopStatus } from '../helpers/loops';
import { assertRefusedUnchanged } from '../helpers/store';
import { waitUntil } from '../helpers/wait';
import { scheduledActivities } from '../helpers/workflow-runs';

const QUICK = { timeout: 120_000 };

/** One check that passes for spec `good` and, for any other spec, once fixed.txt exists. */
const gatedByFix = (limit: number) => ({
  settings: { spec_attempt_limit: limit },
  nodes: [check('tests', 1, 'test "{{spec_name}}" = good || test -f fixed.txt')],
});

async function specsOf(h: EngineHarness, loopId: string) {
  return (await listSpecs(h.ctx.db, { loopId })).map((spec) => [spec.name, spec.status, spec.failure_count]);
}

describe('spec_attempt_limit', () => {
  const h = useEngineHarness();

  it(
    'blocks the loop, running no node, once a spec failed spec_attempt_limit runs; reset --specs gives it new attempts',
    QUICK,
    async () => {
      const workdir = scratchDir();
      const loopId = await loopWithSpecs(h.ctx, workdir, gatedByFix(2), [{ name: 'good' }, { name: 'add-login' }]);
      await h.withWorker(async () => {
        assert.equal((await runToEnd(h.ctx, loopId)).status, 'failed');
        await continueLoop(h.ctx, loopId, 'retry');
        assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'failed');
        assert.deepEqual(await specsOf(h, loopId), [
          ['good', 'completed', 0],
          ['add-login', 'failed', 2],
        ]);
        assert.equal((await runsOf(h.ctx, loopId)).length, 3);

        await continueLoop(h.ctx, loopId, 'retry');
        await untilLoopStatus(h.ctx, loopId, 'blocked');
        const reason =
          `spec 'add-login' failed 2 times across runs (spec_attempt_limit 2); fix what fails it, ` +
          `then give it new attempts with \`canopy loop reset ${loopId} --specs add-login\` (or raise spec_attempt_limit)`;
        const blocked = await loopStatus(h.ctx, loopId);
        assert.equal(blocked.live?.blockedReason, reason);
        assert.deepEqual(
          blocked.specs.map((spec) => [spec.name, spec.failure_count]),
          [
            ['good', 0],
            ['add-login', 2],
          ],
        );

        // A continue claims again and, the spec still out of attempts, blocks again.
        await continueLoop(h.ctx, loopId, 'retry');
        await waitUntil('the second claim', async () => (await scheduledActivities(await h.ctx.temporal(), loopId, 'openNextSpec')) === 2);
        await untilLoopStatus(h.ctx, loopId, 'blocked');
        assert.equal((await loopStatus(h.ctx, loopId)).live?.blockedReason, reason);
        assert.equal((await runsOf(h.ctx, loopId)).length, 3, 'no node ran while the spec was out of attempts');

        writeFileSync(path.join(workdir, 'fixed.txt'), 'y');
        assert.deepEqual(await resetLoop(h.ctx, loopId, { specs: ['add-login'] }), { loop_id: loopId, status: 'blocked', specs_reset: 1 });
        assert.deepEqual(await specsOf(h, loopId), [
          ['good', 'completed', 0],
          ['add-login', 'pending', 0],
        ]);
        await continueLoop(h.ctx, loopId, 'retry');
        assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
      });
      assert.deepEqual(await specsOf(h, loopId), [
        ['good', 'completed', 0],
        ['add-login', 'completed', 0],
      ]);
      const runs = await runsOf(h.ctx, loopId);
      assert.deepEqual(
        runs.map((run) => run.outcome),
        ['pass', 'fail', 'fail', 'pass'],
        'good ran once and stayed completed; add-login ran again once reset',
      );
    },
  );

  it('skips a spec out of attempts on continue --strategy skip and drains the rest', QUICK, async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), gatedByFix(1), [{ name: 'broken' }, { name: 'good' }]);
    await h.withWorker(async () => {
      assert.equal((await runToEnd(h.ctx, loopId)).status, 'failed');
      await continueLoop(h.ctx, loopId, 'retry');
      await untilLoopStatus(h.ctx, loopId, 'blocked');
      await continueLoop(h.ctx, loopId, 'skip');
      assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    });
    assert.deepEqual(await specsOf(h, loopId), [
      ['broken', 'skipped', 1],
      ['good', 'completed', 0],
    ]);
    assert.equal((await runsOf(h.ctx, loopId)).length, 2);
  });

  it(
    'blocks a run that would claim a pending spec out of attempts; a full reset of the blocked loop clears every count',
    QUICK,
    async () => {
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), gatedByFix(1), [{ name: 'broken' }]);
      await h.withWorker(async () => {
        assert.equal((await runToEnd(h.ctx, loopId)).status, 'failed');
        const [broken] = await listSpecs(h.ctx.db, { loopId });
        await updateSpec(h.ctx, { spec_id: broken.id, status: 'pending' });
        await startLoopRun(h.ctx, loopId);
        await untilLoopStatus(h.ctx, loopId, 'blocked');
        assert.equal((await runsOf(h.ctx, loopId)).length, 1, 'the blocked run ran no node');
        assert.deepEqual(await resetLoop(h.ctx, loopId), { loop_id: loopId, status: 'blocked', specs_reset: 1 });
        assert.deepEqual(await specsOf(h, loopId), [['broken', 'pending', 0]]);
        await continueLoop(h.ctx, loopId, 'retry');
        assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'failed');
        assert.deepEqual(await specsOf(h, loopId), [['broken', 'failed', 1]]);

        await updateLoop(h.ctx, { loop_id: loopId, settings: { spec_attempt_limit: 2 } });
        await continueLoop(h.ctx, loopId, 'retry');
        assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'failed', 'a raised limit gives the spec its next attempt');
        assert.deepEqual(await specsOf(h, loopId), [['broken', 'failed', 2]]);
        assert.equal((await runsOf(h.ctx, loopId)).length, 3);
      });
    },
  );

  it('refuses a reset while a node runs, naming it, and changes nothing', QUICK, async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('slow-check', 1, 'sleep 300')] }, [{ name: 'spec' }]);
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      // Started means its process group is on record: the record changes until then, which a snapshot would catch.
      const run = await waitUntil('the check to start', async () =>
        (await runsOf(h.ctx, loopId)).find((r) => r.status === 'running' && r.pgid !== null),
      );
      await assertRefusedUnchanged(h.ctx, () => resetLoop(h.ctx, loopId, { specs: ['spec'] }), {
        code: 'refused',
        message: new RegExp(`running node 'slow-check' \\(${run.id}\\); reset it once the node ends`),
      });
      await assertRefusedUnchanged(h.ctx, () => resetLoop(h.ctx, loopId), { code: 'refused', message: /running node 'slow-check'/ });
      await stopLoop(h.ctx, loopId, 30_000);
    });
    assert.equal((await resetLoop(h.ctx, loopId, { specs: ['spec'] })).status, 'pending');
  });

  it('refuses unknown spec names, and an empty list, listing the loop’s specs', async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), gatedByFix(1), [{ name: 'one' }, { name: 'two' }]);
    const [one, two] = await listSpecs(h.ctx.db, { loopId });
    await assertRefusedUnchanged(h.ctx, () => resetLoop(h.ctx, loopId, { specs: ['one', 'nope'] }), {
      code: 'invalid_input',
      field: 'specs',
      message: new RegExp(`the loop has no spec 'nope'; its specs are 'one' \\(${one.id}\\), 'two' \\(${two.id}\\)`),
    });
    await assertRefusedUnchanged(h.ctx, () => resetLoop(h.ctx, loopId, { specs: [] }), {
      code: 'invalid_input',
      field: 'specs',
      message: /name at least one spec, or leave specs out/,
    });
    assert.equal((await resetLoop(h.ctx, loopId, { specs: [two.id] })).specs_reset, 0, 'a spec pending with no failures needs nothing');
  });

  it('refuses a spec_attempt_limit that is not a whole number of at least 1, naming the field, and changes nothing', async () => {
    const workdir = scratchDir();
    const loopId = await loopWithSpecs(h.ctx, workdir, gatedByFix(2), []);
    for (const [value, message] of [
      [0, /must be at least 1/],
      [1.5, /must be a whole number, e.g\. 3/],
      ['3', /must be a whole number of runs, e.g\. 3/],
    ] as const) {
      const settings = { spec_attempt_limit: value };
      await assertRefusedUnchanged(h.ctx, () => updateLoop(h.ctx, { loop_id: loopId, settings }), {
        code: 'invalid_input',
        field: 'settings.spec_attempt_limit',
        message,
      });
      await assertRefusedUnchanged(h.ctx, () => createLoop(h.ctx, { name: `limit ${value}`, workdir, settings }), {
        code: 'invalid_input',
        field: 'settings.spec_attempt_limit',
        message,
      });
    }
    assert.deepEqual((await getLoop(h.ctx.db, loopId))?.settings, { spec_attempt_limit: 2 });
  });
});
