// The idle watchdog: an agent or check that prints nothing for its idle_timeout_minutes is killed,
// fails as `idle` with how long and its last line, and takes its fail edge, never retried as
// infrastructure; output keeps the clock from running out, and a loop's default covers its nodes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isGroupAlive } from '../../src/process/process-group';
import { useEngineHarness } from '../helpers/engine';
import { agent, check, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';

const QUICK = { timeout: 90_000 };
/** Three seconds of silence. */
const IDLE_MINUTES = 0.05;

describe('the idle watchdog', () => {
  const h = useEngineHarness();

  it('kills an agent that printed and then went silent, failing it as idle down its fail edge', QUICK, async () => {
    const shape = {
      nodes: [
        agent('worker', 1, '@print working on it\n@sleep 60', { idle_timeout_minutes: IDLE_MINUTES }),
        check('handler', 2, 'echo handled'),
      ],
      edges: [{ source: 'worker', target: 'handler', condition: 'fail' }],
    };
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), shape, [{ name: 'spec' }]);
    const started = Date.now();
    await h.withWorker(() => runToEnd(h.ctx, loopId));
    const runs = await runsOf(h.ctx, loopId);
    const worker = runs.filter((run) => run.node_name === 'worker');
    assert.deepEqual(
      worker.map((run) => [run.status, run.failure_kind, run.infra_attempt]),
      [['fail', 'idle', 1]],
      'failed once, not retried as infrastructure',
    );
    assert.match(worker[0].reason ?? '', /Printed nothing for idle_timeout_minutes \(0\.05\); killed\. Its last line: working on it/);
    assert.ok(Date.now() - started < 50_000, 'killed long before its sleep or its timeout ended');
    assert.equal(isGroupAlive(worker[0].pgid!), false, 'no process left behind');
    assert.deepEqual(
      runs.filter((run) => run.node_name === 'handler').map((run) => run.status),
      ['pass'],
      'the fail edge was taken',
    );
  });

  it('takes the loop’s default for a check, and lets one that keeps printing run past it', QUICK, async () => {
    const shape = {
      settings: { idle_timeout_minutes: IDLE_MINUTES },
      nodes: [
        check('talkative', 1, 'for i in 1 2 3 4 5 6; do echo "step $i"; sleep 1; done'),
        check('silent', 2, 'echo "about to wait" >&2; sleep 60'),
      ],
      edges: [{ source: 'talkative', target: 'silent' }],
    };
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), shape, [{ name: 'spec' }]);
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'failed');
    assert.equal(result.failingNode, 'silent');
    assert.equal(result.failureKind, 'idle');
    const runs = await runsOf(h.ctx, loopId);
    const talkative = runs.find((run) => run.node_name === 'talkative')!;
    assert.equal(talkative.status, 'pass', talkative.reason ?? '');
    assert.match(talkative.stdout, /step 6/);
    const silent = runs.find((run) => run.node_name === 'silent')!;
    assert.match(silent.reason ?? '', /Its last line: about to wait/);
  });

  it('says so when the process never printed anything', QUICK, async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      { nodes: [check('mute', 1, 'sleep 60', { idle_timeout_minutes: IDLE_MINUTES })] },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.failureKind, 'idle');
    assert.match(result.reason ?? '', /It printed nothing at all\./);
  });
});
