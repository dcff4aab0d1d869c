// A whole loop run with the store in PostgreSQL: worker, agents' self-reports and CLI all share it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { CANOPY_BIN, childEnv, engineHarness, type EngineHarness } from '../helpers/engine';
import { agent, check, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';
import { postgres, type ScratchStore } from '../helpers/store-dialects';

describe('loop runs on a PostgreSQL store', async () => {
  const unavailable = await postgres.unavailable();
  if (unavailable) {
    it('runs on postgres', { skip: unavailable }, () => {});
    return;
  }
  let scratch: ScratchStore;
  let h: EngineHarness;
  before(async () => {
    scratch = await postgres.scratchStore();
    h = await engineHarness({ CANOPY_DATABASE_URL: scratch.options.url! });
  });
  after(async () => {
    await h.close();
    await scratch.dispose();
  });

  it('runs an agent that reports through the CLI, then a check, and shows the run through the CLI', async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        nodes: [agent('reporter', 1, '@report pass stored in postgres'), check('after', 2, 'echo "{{previous_output}}"')],
        edges: [{ source: 'reporter', target: 'after' }],
      },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed', result.reason ?? '');
    const runs = await runsOf(h.ctx, loopId);
    assert.equal(runs.find((r) => r.node_name === 'reporter')!.reported_output, 'stored in postgres');
    assert.equal(runs.find((r) => r.node_name === 'after')!.stdout.trim(), 'stored in postgres');
    const info = JSON.parse(
      execFileSync(process.execPath, [CANOPY_BIN, 'loop', 'info', loopId, '--json'], { env: childEnv(h.config), encoding: 'utf8' }),
    );
    assert.equal(info.status, 'completed');
  });
});
