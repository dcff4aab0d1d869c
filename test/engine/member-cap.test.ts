// The member cap is the host's, not each ensemble's: members of every loop wait on the member queue,
// `queued`, for one of its ensemble_concurrency slots. Counted from the processes themselves.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { loopPicture } from '../../src/client/loop-picture-service';
import { useEngineHarness, withConfigChanges } from '../helpers/engine';
import { loopWithSpecs, scratchDir } from '../helpers/loops';
import { countRunning } from '../helpers/running-processes';

const CAP = 2;
const LOOPS = 3;

/** The fake agents running now whose prompt holds `marker` (their supervisors' shells hold it too, and are not counted). */
function agentsRunning(marker: string): number {
  return countRunning((argv) => argv[1]?.endsWith('fake-agent.js') && argv.some((arg) => arg.includes(marker)));
}

describe('the member cap of a host', () => {
  const h = useEngineHarness();

  it(`runs at most ${CAP} members at once across ${LOOPS} loops of 4-member ensembles, the rest queued, and completes them all`, async () => {
    await withConfigChanges(h.config.home, { ensemble_concurrency: CAP }, async () => {
      const marker = `member-cap-${randomBytes(4).toString('hex')}`;
      const ensemble = {
        name: 'drafters',
        prompt_template: `@print ${marker}\n@sleep 2`,
        members: Array.from({ length: 4 }, () => ({ platform: 'fake' })),
      };
      const loopIds: string[] = [];
      for (let index = 0; index < LOOPS; index++)
        loopIds.push(await loopWithSpecs(h.ctx, scratchDir(), { nodes: [], ensembles: [ensemble] }, [{ name: 'draft' }]));

      let most = 0;
      let sawQueued = false;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          most = Math.max(most, agentsRunning(marker));
          const pictures = await Promise.all(loopIds.map((loopId) => loopPicture(h.ctx, loopId)));
          sawQueued ||= pictures.some((picture) => picture.vertices.some((v) => v.ensemble?.members.some((m) => m.state === 'queued')));
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      const results = await h.withWorker(async () => {
        for (const loopId of loopIds) await startLoopRun(h.ctx, loopId);
        return Promise.all(loopIds.map((loopId) => waitForLoopRun(h.ctx, loopId)));
      });
      sampling = false;
      await sampler;

      assert.deepEqual(
        results.map((result) => result.status),
        Array(LOOPS).fill('completed'),
      );
      assert.ok(most <= CAP, `${most} member processes ran at once; the cap is ${CAP}`);
      assert.equal(most, CAP, 'the members ran side by side, up to the cap');
      assert.ok(sawQueued, 'a member waiting for a slot showed as queued');
    });
  });
});
