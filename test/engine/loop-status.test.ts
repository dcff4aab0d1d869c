// A loop's status agrees with its last run's: however fast the run ends after it is started, and
// however many loops start at once, what the store says of the loop is what its run recorded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Client } from '@temporalio/client';
import type { ClientContext } from '../../src/client/context';
import { loopStatus } from '../../src/client/loop-status-service';
import { getLoop, listLoops } from '../../src/client/loops-service';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { latestLoopRun } from '../../src/store/loop-runs-repository';
import { getLoop as storedLoop, setLoopStatus } from '../../src/store/loops-repository';
import { useEngineHarness } from '../helpers/engine';
import { chain, loopWithSpecs, scratchDir } from '../helpers/loops';

const LOOPS_AT_ONCE = 30;

/** A client context whose workflow starts return only once the run has ended: a run as fast as the start's own answer. */
function startAnsweredAfterTheRun(ctx: ClientContext): ClientContext {
  return {
    ...ctx,
    async temporal(connectTimeoutMs) {
      const client = await ctx.temporal(connectTimeoutMs);
      const workflow = Object.create(client.workflow) as Client['workflow'];
      workflow.start = (async (...args: Parameters<Client['workflow']['start']>) => {
        const handle = await client.workflow.start(...args);
        await handle.result();
        return handle;
      }) as Client['workflow']['start'];
      return Object.create(client, { workflow: { value: workflow } }) as Client;
    },
  };
}

async function quickLoop(ctx: ClientContext): Promise<string> {
  return loopWithSpecs(ctx, scratchDir(), chain(['only', 'true']), [{ name: 'spec' }]);
}

/** The loop's status as stored (no reconciling on the way) beside its last run's. */
async function storedStatuses(ctx: ClientContext, loopId: string): Promise<{ loop: string; run: string }> {
  const [loop, run] = await Promise.all([storedLoop(ctx.db, loopId), latestLoopRun(ctx.db, loopId)]);
  return { loop: loop!.status, run: run!.status };
}

describe('loop status and its last run', () => {
  const h = useEngineHarness();

  it('a run that ends before its start is answered leaves the loop with the run’s outcome', async () => {
    const loopId = await quickLoop(h.ctx);
    await h.withWorker(() => startLoopRun(startAnsweredAfterTheRun(h.ctx), loopId));
    assert.deepEqual(await storedStatuses(h.ctx, loopId), { loop: 'completed', run: 'completed' });
  });

  it(`${LOOPS_AT_ONCE} loops started at once each end with the status their last run recorded`, async () => {
    const loopIds = await Promise.all(Array.from({ length: LOOPS_AT_ONCE }, () => quickLoop(h.ctx)));
    await h.withWorker(async () => {
      await Promise.all(loopIds.map((loopId) => startLoopRun(h.ctx, loopId)));
      await Promise.all(loopIds.map((loopId) => waitForLoopRun(h.ctx, loopId)));
    });
    const statuses = await Promise.all(loopIds.map((loopId) => storedStatuses(h.ctx, loopId)));
    assert.deepEqual(
      statuses.filter((status) => status.loop !== status.run),
      [],
    );
    assert.ok(statuses.every((status) => status.run === 'completed'));
  });

  it('a loop whose stored status was left running after its run ended is read with the run’s outcome', async () => {
    const loopId = await quickLoop(h.ctx);
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      await waitForLoopRun(h.ctx, loopId);
    });
    // What a status write that lost the race with the run's end left behind.
    await setLoopStatus(h.ctx.db, loopId, 'running');
    assert.equal((await listLoops(h.ctx)).find((loop) => loop.id === loopId)?.status, 'completed', 'loop list');
    assert.equal((await getLoop(h.ctx, loopId)).status, 'completed', 'loop get');
    await setLoopStatus(h.ctx.db, loopId, 'running');
    assert.equal((await loopStatus(h.ctx, loopId)).status, 'completed', 'loop info');
    assert.deepEqual(await storedStatuses(h.ctx, loopId), { loop: 'completed', run: 'completed' }, 'the store is put right');
  });
});
