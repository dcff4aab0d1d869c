import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTopology } from '../../src/graph';
import { enterLoopback, roundOf } from '../../src/graph/rounds';
import { agent, check, design, edge } from '../helpers/designs';

test('loop heads named like Object.prototype keys count rounds like any other name', () => {
  for (const head of ['__proto__', 'constructor', 'toString']) {
    const topology = buildTopology(
      design({ nodes: [agent(head, 1), check('tests', 2)], edges: [edge(head, 'tests'), edge('tests', head, 'fail', 'loopback')] }),
      3,
    );
    assert.equal(roundOf(topology, {}, 'tests'), 1);
    const second = enterLoopback(topology, {}, head);
    assert.equal(second.kind, 'next_round');
    if (second.kind !== 'next_round') return;
    assert.equal(second.round, 2);
    assert.equal(roundOf(topology, second.rounds, 'tests'), 2);
    const resumed = JSON.parse(JSON.stringify(second.rounds));
    assert.equal(roundOf(topology, resumed, head), 2, 'rounds read back from JSON, as a resume point is');
    const third = enterLoopback(topology, resumed, head);
    assert.equal(third.kind === 'next_round' && third.round, 3);
    assert.equal(third.kind === 'next_round' && enterLoopback(topology, third.rounds, head).kind, 'exhausted');
  }
});
