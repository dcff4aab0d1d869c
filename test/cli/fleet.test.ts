// A script that starts a fleet: 100 `canopy` processes at once against one home, one store and one
// server all succeed, however long they queue for the store and for Temporal; on both dialects.
import assert from 'node:assert/strict';
import { it, type TestContext } from 'node:test';
import { listLoops } from '../../src/store/loops-repository';
import { listSpecs } from '../../src/store/specs-repository';
import { childEnv } from '../helpers/engine';
import { describeEngineOnEachDialect } from '../helpers/engine-dialects';
import { chain, loopWithSpecs, scratchDir } from '../helpers/loops';
import { runCanopy } from '../helpers/processes';
import { waitUntil } from '../helpers/wait';

const FLEET = 100;

describeEngineOnEachDialect(`${FLEET} canopy commands at once`, (h) => {
  /** Runs every command at once and fails with what each refused one said; prints how many were refused and how long all took. */
  async function startAtOnce(t: TestContext, what: string, commands: string[][]): Promise<void> {
    const env = childEnv(h.config);
    const started = Date.now();
    const results = await Promise.all(commands.map((args) => runCanopy(env, ...args)));
    const refused = results.filter((result) => result.status !== 0);
    t.diagnostic(`${what}: ${refused.length} of ${commands.length} refused; all ended ${Date.now() - started} ms after the start`);
    assert.deepEqual(
      refused.map((result) => result.stderr.trim()),
      [],
    );
  }

  it(`${FLEET} concurrent spec create all succeed`, async (t) => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), chain(['only', 'true']), []);
    const names = Array.from({ length: FLEET }, (_, index) => `spec-${index}`);
    await startAtOnce(
      t,
      'spec create',
      names.map((name) => ['spec', 'create', '--loop', loopId, '--name', name, '--content', 'do it']),
    );
    const specs = await listSpecs(h.ctx.db, { loopId });
    assert.deepEqual(specs.map((spec) => spec.name).sort(), [...names].sort());
  });

  it(`${FLEET} concurrent loop run all start, and every loop completes`, async (t) => {
    const loopIds: string[] = [];
    for (let index = 0; index < FLEET; index++) {
      loopIds.push(await loopWithSpecs(h.ctx, scratchDir(), chain(['only', 'true']), [{ name: 'first' }]));
    }
    await h.withWorker(async () => {
      await startAtOnce(
        t,
        'loop run',
        loopIds.map((loopId) => ['loop', 'run', loopId]),
      );
      await waitUntil(
        `all ${FLEET} loops to complete`,
        async () => {
          const loops = await listLoops(h.ctx.db, { includeArchived: true });
          return loops.filter((loop) => loopIds.includes(loop.id)).every((loop) => loop.status === 'completed');
        },
        300_000,
      );
    });
  });
});
