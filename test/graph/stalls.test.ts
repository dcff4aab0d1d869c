import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clearStall, firstLineOf, noProgressReason, reachedLimit, recordRoundEnd, type RoundEnd } from '../../src/graph/stalls';

const end = (changes: Partial<RoundEnd> = {}): RoundEnd => ({ tree: 't1', node: 'tests', output: 'o1', firstLine: 'FAIL: x', ...changes });

test('rounds that end alike count up; a changed tree, node or output starts the count again', () => {
  let stalls = recordRoundEnd({}, 'fix', end());
  stalls = recordRoundEnd(stalls, 'fix', end());
  assert.equal(stalls.fix.rounds, 2);
  for (const changed of [{ tree: 't2' }, { node: 'lint' }, { output: 'o2' }]) {
    const after = recordRoundEnd(recordRoundEnd({}, 'fix', end()), 'fix', end(changed));
    assert.equal(after.fix.rounds, 1, JSON.stringify(changed));
    assert.deepEqual(after.fix.last, end(changed));
  }
});

test('a tree that could not be read never counts as unchanged', () => {
  const stalls = recordRoundEnd(recordRoundEnd({}, 'fix', end({ tree: null })), 'fix', end({ tree: null }));
  assert.equal(stalls.fix.rounds, 1);
});

test('each head counts its own rounds, and a cleared head starts again', () => {
  let stalls = recordRoundEnd(recordRoundEnd({}, 'fix', end()), 'fix', end());
  stalls = recordRoundEnd(stalls, 'outer', end());
  assert.deepEqual([stalls.fix.rounds, stalls.outer.rounds], [2, 1]);
  assert.equal(reachedLimit(stalls, 'fix', 2)?.rounds, 2);
  assert.equal(reachedLimit(stalls, 'fix', 3), null);
  assert.equal(reachedLimit(stalls, 'outer', 2), null);
  const cleared = clearStall(stalls, 'fix');
  assert.deepEqual(Object.keys(cleared), ['outer']);
  assert.equal(clearStall(cleared, 'fix'), cleared, 'clearing a head with no count changes nothing');
});

test('a head named __proto__ is a key like any other', () => {
  const stalls = recordRoundEnd(recordRoundEnd({}, '__proto__', end()), '__proto__', end());
  assert.equal(reachedLimit(stalls, '__proto__', 2)?.rounds, 2);
  assert.equal(reachedLimit({}, '__proto__', 1), null);
});

test('the reason names the rounds, the head, the node and the first line of the repeated output', () => {
  const reason = noProgressReason('fix', { rounds: 3, last: end() });
  assert.match(reason, /^no_progress: 3 rounds in a row of the loop headed by 'fix' ended with the workdir unchanged and tests failing /);
  assert.match(reason, /with the same output: FAIL: x\. .*`canopy loop continue`/);
  assert.match(noProgressReason('fix', { rounds: 2, last: end({ firstLine: '' }) }), /the same output \(no output\)\./);
});

test('the first line is the first that holds more than spaces, cut short', () => {
  assert.equal(firstLineOf('\n   \n  FAIL: parser  \nmore'), 'FAIL: parser');
  assert.equal(firstLineOf(''), '');
  assert.equal(firstLineOf('x'.repeat(300)).length, 200);
});
