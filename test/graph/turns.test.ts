// Whose turn it is in an ensemble whose members take turns, without a workflow.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { currentTurn, nextTurn, turnOrder } from '../../src/graph/turns';

describe('ensemble turns', () => {
  it('a cascade tries every member once, from whose turn it is and around to the first', () => {
    assert.deepEqual(turnOrder('cascade', 3, { member: 1, since: 'pass' }), [1, 2, 0]);
    assert.deepEqual(turnOrder('round_robin', 3, { member: 1, since: 'pass' }), [1]);
  });

  it('the member that passed keeps the turn; a round_robin failure hands it on, around to the first', () => {
    const second = { member: 1, since: 'fail' } as const;
    assert.deepEqual(nextTurn('round_robin', 3, second, 1), { member: 1, since: 'pass' });
    assert.deepEqual(nextTurn('round_robin', 2, second, null), { member: 0, since: 'fail' });
    assert.deepEqual(nextTurn('cascade', 3, second, 2), { member: 2, since: 'pass' });
    assert.equal(nextTurn('cascade', 3, second, null), second, 'a cascade that all failed starts where it started');
  });

  it('the first entry, and a turn past the members an edit left, start with the first member', () => {
    assert.deepEqual(currentTurn(undefined, 2), { member: 0, since: 'start' });
    assert.deepEqual(currentTurn({ member: 3, since: 'pass' }, 2), { member: 0, since: 'start' });
    assert.deepEqual(currentTurn({ member: 1, since: 'pass' }, 2), { member: 1, since: 'pass' });
  });
});
