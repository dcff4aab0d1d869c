// spec_attempt_limit and `loop reset --specs` through `canopy` child processes, on the run's dev server.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { continueLoop, stopLoop } from '../../src/client/runs-service';
import { getLoop } from '../../src/store/loops-repository';
import { childEnv, useEngineHarness } from '../helpers/engine';
import { check, loopWithSpecs, runToEnd, scratchDir } from '../helpers/loops';
import { canopySync, runCanopy } from '../helpers/processes';
import { waitUntil } from '../helpers/wait';

describe(
  'canopy loop update --spec-attempt-limit and loop reset --specs',
  { skip: !process.env.CANOPY_TEST_TEMPORAL_ADDRESS && 'needs the dev server `npm test` starts' },
  () => {
    const h = useEngineHarness();
    const canopy = (...args: string[]) => canopySync(childEnv(h.config), args);

    it(
      'sets the limit keeping the other settings, shows the block and the failure counts, and resets the named spec',
      { timeout: 120_000 },
      async () => {
        const shape = { settings: { max_iterations: 4 }, nodes: [check('tests', 1, 'false')] };
        const loopId = await loopWithSpecs(h.ctx, scratchDir(), shape, [{ name: 'broken' }]);

        const refused = canopy('loop', 'update', loopId, '--spec-attempt-limit', '0');
        assert.equal(refused.status, 2);
        assert.match(refused.stderr, /The loop is invalid; nothing was changed\.\n {2}- settings\.spec_attempt_limit: must be at least 1/);
        const notANumber = canopy('loop', 'update', loopId, '--spec-attempt-limit', 'three');
        assert.equal(notANumber.status, 2);
        assert.match(notANumber.stderr, /settings\.spec_attempt_limit: must be a whole number of runs, e\.g\. 3/);
        assert.deepEqual((await getLoop(h.ctx.db, loopId))?.settings, { max_iterations: 4 });

        const updated = canopy('loop', 'update', loopId, '--spec-attempt-limit', '1');
        assert.equal(updated.status, 0, updated.stderr);
        assert.deepEqual((await getLoop(h.ctx.db, loopId))?.settings, { max_iterations: 4, spec_attempt_limit: 1 });

        await h.withWorker(async () => {
          assert.equal((await runToEnd(h.ctx, loopId)).status, 'failed');
          await continueLoop(h.ctx, loopId, 'retry');
          await waitUntil('the loop to block', async () => (await getLoop(h.ctx.db, loopId))?.status === 'blocked');

          // The in-process worker answers loop info's live query, so this child must not block the event loop.
          const info = await runCanopy(childEnv(h.config), 'loop', 'info', loopId);
          assert.equal(info.status, 0, info.stderr);
          assert.match(info.stdout, /^blocked {2}spec 'broken' failed 1 times across runs \(spec_attempt_limit 1\); fix what fails it/m);
          assert.match(info.stdout, /^ {2}failed {5}broken \(spec_\w+\) {2}failed in 1 run\(s\)$/m);

          const unknown = canopy('loop', 'reset', loopId, '--specs', 'broken,nope');
          assert.equal(unknown.status, 2);
          assert.match(unknown.stderr, /- specs: the loop has no spec 'nope'; its specs are 'broken' \(spec_\w+\)/);

          const reset = canopy('loop', 'reset', loopId, '--specs', 'broken');
          assert.equal(reset.status, 0, reset.stderr);
          assert.equal(
            reset.stdout.trim(),
            `Loop ${loopId} stays blocked (1 spec(s) reset); go on with \`canopy loop continue ${loopId}\`.`,
          );
          const get = JSON.parse(canopy('loop', 'get', loopId, '--json').stdout);
          assert.deepEqual(
            get.specs.map((spec: { status: string; failure_count: number }) => [spec.status, spec.failure_count]),
            [['pending', 0]],
          );
          await stopLoop(h.ctx, loopId, 30_000);
        });
      },
    );
  },
);
