// spec_attempt_limit in loop_update and loop_get, and loop_reset { specs }, through `canopy mcp` and the SDK's client.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useEngineHarness } from '../helpers/engine';
import { check, loopWithSpecs, runToEnd, scratchDir } from '../helpers/loops';
import { callOk, callRefused, useMcpSession } from '../helpers/mcp-client';

describe(
  'spec_attempt_limit over MCP',
  { skip: !process.env.CANOPY_TEST_TEMPORAL_ADDRESS && 'needs the dev server `npm test` starts' },
  () => {
    const h = useEngineHarness();
    const session = useMcpSession(h);

    it(
      'refuses a bad spec_attempt_limit and unknown spec names, and resets the named spec’s failure count',
      { timeout: 120_000 },
      async () => {
        const shape = { settings: { spec_attempt_limit: 2 }, nodes: [check('tests', 1, 'test "{{spec_name}}" = good')] };
        const loopId = await loopWithSpecs(h.ctx, scratchDir(), shape, [{ name: 'good' }, { name: 'broken' }]);
        for (const value of ['three', 1.5, 0]) {
          assert.match(
            await callRefused(session.client, 'loop_update', { loop_id: loopId, settings: { spec_attempt_limit: value } }),
            /must be (a whole number|at least 1)[^\n]* at settings\.spec_attempt_limit/,
          );
        }
        assert.equal((await h.withWorker(() => runToEnd(h.ctx, loopId))).status, 'failed');

        const loop = await callOk(session.client, 'loop_get', { loop_id: loopId });
        assert.deepEqual(loop.settings, { spec_attempt_limit: 2 });
        const counts = (specs: { name: string; status: string; failure_count: number }[]) =>
          specs.map((spec) => [spec.name, spec.status, spec.failure_count]);
        assert.deepEqual(counts(loop.specs), [
          ['good', 'completed', 0],
          ['broken', 'failed', 1],
        ]);
        assert.deepEqual(counts((await callOk(session.client, 'loop_info', { loop_id: loopId })).specs), counts(loop.specs));

        assert.match(
          await callRefused(session.client, 'loop_reset', { loop_id: loopId, specs: ['missing'] }),
          /- specs: the loop has no spec 'missing'; its specs are 'good' \(spec_\w+\), 'broken' \(spec_\w+\)/,
        );
        assert.deepEqual(await callOk(session.client, 'loop_reset', { loop_id: loopId, specs: ['broken'] }), {
          loop_id: loopId,
          status: 'pending',
          specs_reset: 1,
        });
        assert.deepEqual(counts((await callOk(session.client, 'loop_get', { loop_id: loopId })).specs), [
          ['good', 'completed', 0],
          ['broken', 'pending', 0],
        ]);
      },
    );
  },
);
