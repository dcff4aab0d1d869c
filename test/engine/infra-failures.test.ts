// Infrastructure failures: a node killed from outside, one that cannot start or that crashes at
// once is run again infra_retries times, each attempt on record, then takes its error edge, never
// its fail edge; a plain work failure still takes the fail edge and is not retried.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { getLoop, updateLoop } from '../../src/client/loops-service';
import { useEngineHarness } from '../helpers/engine';
import { assertRefusedUnchanged } from '../helpers/store';
import { agent, check, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';

const SLOW = { timeout: 180_000 };
const KILLED = 'echo started; kill -KILL $$';

describe('infrastructure failures', () => {
  const h = useEngineHarness();
  let intactConfig = '';
  before(() => {
    const config = path.join(h.config.home, 'config.json');
    intactConfig = readFileSync(config, 'utf8');
    const platforms = {
      ...(JSON.parse(intactConfig) as { platforms: Record<string, unknown> }).platforms,
      silent_crash: { argv: ['bash', '-c', 'exit 3', '{{prompt}}'] },
      missing_cli: { argv: ['canopy-test-no-such-cli', '{{prompt}}'] },
    };
    writeFileSync(config, JSON.stringify({ platforms }));
  });
  after(() => writeFileSync(path.join(h.config.home, 'config.json'), intactConfig));

  const attemptsOf = async (loopId: string, node: string) =>
    (await runsOf(h.ctx, loopId)).filter((r) => r.node_name === node).map((r) => [r.status, r.failure_kind]);

  it('retries a check killed by a signal infra_retries times, then takes its error edge', SLOW, async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        settings: { infra_retries: 2 },
        nodes: [check('flaky', 1, KILLED), check('fixer', 2, 'echo fixing'), check('handler', 3, 'echo handled')],
        edges: [
          { source: 'flaky', target: 'fixer', condition: 'fail' },
          { source: 'flaky', target: 'handler', condition: 'error' },
        ],
      },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed', result.reason ?? '');
    const runs = await runsOf(h.ctx, loopId);
    const flaky = runs.filter((r) => r.node_name === 'flaky');
    assert.deepEqual(
      flaky.map((r) => [r.status, r.failure_kind, r.stdout.trim()]),
      Array.from({ length: 3 }, () => ['fail', 'infra_signal', 'started']),
    );
    assert.match(flaky[0].reason ?? '', /Killed by SIGKILL, which canopy did not send/);
    assert.deepEqual(
      runs.filter((r) => r.node_name !== 'flaky').map((r) => [r.node_name, r.status]),
      [['handler', 'pass']],
      'the fail edge is never taken',
    );
  });

  it('fails the loop with the infra kind when the node has no error edge, never taking its fail edge', SLOW, async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        settings: { infra_retries: 0 },
        nodes: [check('flaky', 1, KILLED), check('fixer', 2, 'echo fixing')],
        edges: [{ source: 'flaky', target: 'fixer', condition: 'fail' }],
      },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.deepEqual([result.status, result.failingNode, result.failureKind], ['failed', 'flaky', 'infra_signal']);
    assert.deepEqual(await attemptsOf(loopId, 'flaky'), [['fail', 'infra_signal']]);
    assert.deepEqual(await attemptsOf(loopId, 'fixer'), []);
  });

  it('tells an agent that cannot start and one that crashes at once from a work failure', SLOW, async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        settings: { infra_retries: 1 },
        nodes: [
          agent('unstartable', 1, 'work', { platform: 'missing_cli' }),
          agent('crashing', 2, 'work', { platform: 'silent_crash' }),
          agent('failing', 3, '@print tests fail\n@exit 1'),
          check('fixer', 4, 'echo fixing'),
        ],
        edges: [
          { source: 'unstartable', target: 'crashing', condition: 'error' },
          { source: 'crashing', target: 'failing', condition: 'error' },
          { source: 'failing', target: 'fixer', condition: 'fail' },
        ],
      },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed', result.reason ?? '');
    assert.deepEqual(await attemptsOf(loopId, 'unstartable'), [
      ['fail', 'infra_spawn'],
      ['fail', 'infra_spawn'],
    ]);
    assert.deepEqual(await attemptsOf(loopId, 'crashing'), [
      ['fail', 'infra_crash'],
      ['fail', 'infra_crash'],
    ]);
    assert.deepEqual(await attemptsOf(loopId, 'failing'), [['fail', 'exit_code']], 'a work failure is not retried');
    assert.deepEqual(await attemptsOf(loopId, 'fixer'), [['pass', null]]);
  });

  it('refuses an infra_retries out of range or not whole, naming the field, and changes nothing', async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('any', 1, 'true')] }, []);
    const refusals: [unknown, RegExp][] = [
      [11, /must be at most 10/],
      [-1, /must be at least 0/],
      [1.5, /must be a whole number/],
      ['two', /expected number/],
    ];
    for (const [value, message] of refusals) {
      await assertRefusedUnchanged(h.ctx, () => updateLoop(h.ctx, { loop_id: loopId, settings: { infra_retries: value as number } }), {
        code: 'invalid_input',
        field: 'settings.infra_retries',
        message,
      });
    }
    await updateLoop(h.ctx, { loop_id: loopId, settings: { infra_retries: 10 } });
    assert.deepEqual((await getLoop(h.ctx, loopId)).settings, { infra_retries: 10 });
  });
});
