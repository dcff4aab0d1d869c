// How gates and routers judge the upstream output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateGate } from '../../src/node-kinds/gate';
import { routeLabel, routerLabels } from '../../src/node-kinds/router';

test('a gate passes when every given condition holds', () => {
  const verdict = evaluateGate({ output_contains: 'DONE', output_not_contains: 'ERROR', output_matches: '^ok \\d+$' }, 'DONE\nok 12');
  assert.equal(verdict.outcome, 'fail', 'the regex has no m flag, so ^ matches only at the start');
  assert.equal(evaluateGate({ output_contains: 'DONE', output_matches: 'ok \\d+' }, 'DONE ok 12').outcome, 'pass');
});

test('a gate fails naming only the conditions that do not hold', () => {
  const config = { output_contains: 'DONE', output_not_contains: 'ERROR', output_matches: 'tests: \\d+ passed' };
  const verdict = evaluateGate(config, 'DONE with ERROR');
  assert.equal(verdict.outcome, 'fail');
  assert.match(verdict.reason, /does not contain "ERROR"/);
  assert.match(verdict.reason, /matches \/tests: \\d\+ passed\//);
  assert.doesNotMatch(verdict.reason, /output contains "DONE"/);
});

test('gate text comparison is case-sensitive', () => {
  assert.equal(evaluateGate({ output_contains: 'DONE' }, 'done').outcome, 'fail');
  assert.equal(evaluateGate({ output_not_contains: 'error' }, 'ERROR').outcome, 'pass');
});

test('a router takes the first route in key order with a token found, ignoring case', () => {
  const config = { routes: { bug: ['crash', 'Exception'], style: ['lint', 'exception'] }, fallback: 'other' };
  assert.deepEqual(routeLabel(config, 'an EXCEPTION and a LINT warning'), { label: 'bug', matched_token: 'Exception' });
  assert.deepEqual(routeLabel(config, 'only lint here'), { label: 'style', matched_token: 'lint' });
});

test('a router with no matching token takes its fallback', () => {
  assert.deepEqual(routeLabel({ routes: { bug: ['crash'] }, fallback: 'other' }, 'all good'), { label: 'other', matched_token: null });
});

test('a router can produce its route labels and its fallback', () => {
  assert.deepEqual(routerLabels({ routes: { bug: ['x'], style: ['y'] }, fallback: 'other' }), ['bug', 'style', 'other']);
  assert.deepEqual(routerLabels({ routes: { bug: ['x'] }, fallback: 'bug' }), ['bug']);
});

test('a gate pattern with nested quantifiers is judged in linear time', () => {
  const started = Date.now();
  const verdict = evaluateGate({ output_matches: '^(a+)+$' }, `${'a'.repeat(5_000)}b`);
  assert.equal(verdict.outcome, 'fail');
  assert.ok(Date.now() - started < 1_000, `took ${Date.now() - started} ms`);
});

test('a stored gate pattern that cannot be compiled fails the gate, saying why', () => {
  const verdict = evaluateGate({ output_matches: 'x(?=y)' }, 'xy');
  assert.equal(verdict.outcome, 'fail');
  assert.match(verdict.reason, /can be evaluated \(.*(?:unsupported|invalid)/);
});
