// A property on the dev server: generated designs of checks that pass or fail, wired forward and
// back, each run to an end (completed or failed) within a deadline; none hangs.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { importLoop } from '../../src/client/export-import-service';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { createSpec } from '../../src/client/specs-service';
import { CanopyError } from '../../src/domain/errors';
import { loopWorkflowId } from '../../src/contract';
import { checkDesignArb } from '../helpers/arbitraries';
import { useEngineHarness } from '../helpers/engine';
import { scratchDir } from '../helpers/loops';

const SEED = Number(process.env.CANOPY_FUZZ_SEED ?? 20261201);
/** A generated design runs at most 4 nodes for 3 rounds of one spec: seconds, unless it hangs. */
const DEADLINE_MS = 30_000;
const RUNS = Number(process.env.CANOPY_FUZZ_RUNS ?? 8);

const h = useEngineHarness();

it('generated check-only designs run to an end within a deadline', async (t) => {
  const ended: Record<string, number> = { completed: 0, failed: 0, refused: 0 };
  await h.withWorker(() =>
    fc.assert(
      fc.asyncProperty(checkDesignArb, async (design) => {
        const loopId = await importLoop(h.ctx, design, { workdir: scratchDir() }).then(
          (imported) => imported.loop_id,
          (error: unknown) => {
            if (!(error instanceof CanopyError)) throw error;
            ended.refused++;
            return null;
          },
        );
        fc.pre(loopId !== null);
        await createSpec(h.ctx, { loop_id: loopId, name: 'spec' });
        await startLoopRun(h.ctx, loopId);
        const result = await Promise.race([waitForLoopRun(h.ctx, loopId), delay(DEADLINE_MS)]);
        if (!result) {
          const client = await h.ctx.temporal();
          await client.workflow.getHandle(loopWorkflowId(loopId)).terminate('the fuzz deadline passed');
          assert.fail(`the run did not end within ${DEADLINE_MS / 1000}s: ${JSON.stringify(design)}`);
        }
        assert.ok(result.status === 'completed' || result.status === 'failed', JSON.stringify(result));
        ended[result.status]++;
      }),
      { seed: SEED, numRuns: RUNS },
    ),
  );
  t.diagnostic(
    `seed ${SEED}: ${RUNS} designs run to an end (${ended.completed} completed, ${ended.failed} failed), ${ended.refused} refused at import, none hung`,
  );
});

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref());
}
