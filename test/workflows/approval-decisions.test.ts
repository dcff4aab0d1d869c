// The decide update's validator: what it refuses, before the workflow takes a decision.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApprovalDecision } from '../../src/contract';
import { refuseDecision } from '../../src/workflows/approval-wait';

const waiting = { node: 'review', deadline: null };
const approve: ApprovalDecision = { node: 'review', decision: 'approve', comment: null, by: 'alice' };

test('the decide validator takes one decision of the approval the run waits at, and refuses the rest with the reason', () => {
  assert.doesNotThrow(() => refuseDecision(waiting, null, approve));
  assert.doesNotThrow(() => refuseDecision(waiting, null, { ...approve, decision: 'reject', comment: 'no tests' }));
  assert.throws(() => refuseDecision(null, null, approve), /the loop waits at no approval now/);
  assert.throws(() => refuseDecision(undefined, null, approve), /the loop waits at no approval now/);
  assert.throws(() => refuseDecision(waiting, null, { ...approve, node: 'other' }), /waits at approval 'review', not 'other'/);
  assert.throws(() => refuseDecision(waiting, { ...approve, at: '2026-12-06T00:00:00Z' }, approve), /was already approved by alice/);
  assert.throws(() => refuseDecision(waiting, null, { ...approve, decision: 'reject', comment: '  ' }), /a rejection needs a comment/);
});
