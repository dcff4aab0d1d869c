// Stored free text printed for people cannot drive the terminal: control characters are shown escaped.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { terminalSafe } from '../../src/cli/output';
import { insertLoop } from '../../src/store/loops-repository';
import { insertNodeRun, updateNodeRun } from '../../src/store/node-runs-repository';
import { canopySync, homeOnlyEnv } from '../helpers/processes';
import { useTestStore } from '../helpers/store';

const CLEAR_SCREEN = '\u001b[2J\u001b[H';

describe('terminalSafe', () => {
  it('escapes escape sequences, carriage returns, NUL, BEL and C1 controls, keeping newlines and tabs in text', () => {
    assert.equal(terminalSafe(`a${CLEAR_SCREEN}b\rc\u0000d\u0007e\u009bf\n\tg`), 'a\\x1b[2J\\x1b[Hb\\x0dc\\x00d\\x07e\\x9bf\n\tg');
    assert.equal(terminalSafe('line\u2028sep'), 'line\\u2028sep');
  });

  it('escapes newlines and tabs too in a table cell, so a row stays one line', () => {
    assert.equal(terminalSafe('a\nb\tc', { multiline: false }), 'a\\x0ab\\x09c');
  });

  it('leaves printable text, non-ASCII included, as it is', () => {
    assert.equal(terminalSafe('ünïcode ✓ — "quotes" \\ back'), 'ünïcode ✓ — "quotes" \\ back');
  });
});

describe('the CLI prints stored text escaped', () => {
  const store = useTestStore();
  const canopy = (...args: string[]) => {
    const result = canopySync(homeOnlyEnv(store.home), args);
    assert.equal(result.status, 0, result.stderr);
    return result.stdout;
  };

  it('in loop list, loop get and loop run-get, for rows written before names were checked and for node output', async () => {
    // Written straight to the store, as rows from before the name checks, or output an agent printed.
    const loop = await insertLoop(store.ctx.db, {
      name: `evil${CLEAR_SCREEN}loop`,
      workdir: store.workdir(),
      description: `wipes${CLEAR_SCREEN}screens`,
      settings: {},
    });
    const run = await insertNodeRun(store.ctx.db, {
      run_key: 'k',
      loop_id: loop.id,
      spec_id: null,
      node_id: null,
      node_name: 'n',
      kind: 'check',
      workflow_id: 'w',
      round: 1,
      infra_attempt: 1,
    });
    await updateNodeRun(store.ctx.db, run.id, { stdout: `ok${CLEAR_SCREEN}\rfake prompt$ `, reason: `bad${CLEAR_SCREEN}` });

    for (const printed of [
      canopy('loop', 'list'),
      canopy('loop', 'get', loop.id),
      canopy('loop', 'run-get', run.id),
      canopy('loop', 'runs', loop.id),
    ]) {
      assert.ok(
        // eslint-disable-next-line no-control-regex -- looking for control characters is the point
        !/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(printed),
        `a control character reached the terminal:\n${JSON.stringify(printed)}`,
      );
    }
    assert.match(canopy('loop', 'list'), /evil\\x1b\[2J\\x1b\[Hloop/);
    assert.match(canopy('loop', 'run-get', run.id), /ok\\x1b\[2J\\x1b\[H\\x0dfake prompt/);
    assert.equal(JSON.parse(canopy('loop', 'get', loop.id, '--json')).description, `wipes${CLEAR_SCREEN}screens`, '--json keeps the text');
  });
});
