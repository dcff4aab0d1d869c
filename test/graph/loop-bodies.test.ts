import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loopBodies, type TypedEdge } from '../../src/graph';
import { PROJECT_ROOT } from '../../src/project';

interface Vector {
  name: string;
  edges: TypedEdge[];
  bodies: Record<string, string[]>;
}

test('loop-body vectors of the product description', async (t) => {
  const file = path.join(PROJECT_ROOT, 'test', 'fixtures', 'loop-bodies.json');
  const vectors = JSON.parse(fs.readFileSync(file, 'utf8')) as Vector[];
  assert.ok(vectors.length > 0, `${file} holds no vectors`);
  for (const vector of vectors) {
    await t.test(vector.name, () => assert.deepEqual(loopBodies(vector.edges), vector.bodies));
  }
});

test('edges that never execute neither widen a body nor close a loop', () => {
  const edges: TypedEdge[] = [
    { source: 'h', target: 't' },
    { source: 't', target: 'h', type: 'loopback' },
    { source: 'h', target: 'helper', type: 'tool' },
    { source: 'helper', target: 't', type: 'agent_result' },
    { source: 'after', target: 't', type: 'tool' },
  ];
  assert.deepEqual(loopBodies(edges), { h: ['h', 't'] });
});

test('a path from head to tail that needs another loopback closes no cycle', () => {
  const edges: TypedEdge[] = [
    { source: 'h', target: 'a' },
    { source: 'a', target: 'b', type: 'loopback' },
    { source: 'b', target: 't' },
    { source: 't', target: 'h', type: 'loopback' },
  ];
  assert.deepEqual(loopBodies(edges), { b: ['b'], h: ['h'] });
});

test('a self-loopback is a loop whose body is the head alone', () => {
  assert.deepEqual(
    loopBodies([
      { source: 'a', target: 'b', type: 'flow' },
      { source: 'a', target: 'a', type: 'loopback' },
    ]),
    { a: ['a'] },
  );
});

test('nested loops each get their own body, keyed by head', () => {
  const edges: TypedEdge[] = [
    { source: 'outer', target: 'inner' },
    { source: 'inner', target: 'fix' },
    { source: 'fix', target: 'inner', type: 'loopback' },
    { source: 'fix', target: 'review' },
    { source: 'review', target: 'outer', type: 'loopback' },
  ];
  assert.deepEqual(loopBodies(edges), { inner: ['fix', 'inner'], outer: ['fix', 'inner', 'outer', 'review'] });
});

test('a graph without loopbacks has no loops', () => {
  assert.deepEqual(loopBodies([{ source: 'a', target: 'b' }]), {});
});

test('a head named __proto__ is an ordinary key', () => {
  const bodies = loopBodies([
    { source: '__proto__', target: 't' },
    { source: 't', target: '__proto__', type: 'loopback' },
  ]);
  assert.deepEqual(Object.entries(bodies), [['__proto__', ['__proto__', 't']]]);
});

test('a 5000-node chain closed by a loopback has the whole chain as its body', () => {
  const names = Array.from({ length: 5000 }, (_, i) => `n${i}`);
  const edges: TypedEdge[] = names.slice(1).map((name, i) => ({ source: names[i], target: name }));
  edges.push({ source: 'n2500', target: 'side' }, { source: 'n4999', target: 'after' });
  edges.push({ source: 'n4999', target: 'n0', type: 'loopback' });
  assert.deepEqual(loopBodies(edges), { n0: [...names].sort() });
});
