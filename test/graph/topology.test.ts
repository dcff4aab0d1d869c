import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTopology, ensemblePosition, entryVertex, nextSteps, topologicalOrder, type Topology } from '../../src/graph';
import { agent, check, design, edge, ensemble, router } from '../helpers/designs';

const implementAndReview = design({
  nodes: [agent('implement', 1, { max_iterations: 3 }), check('tests', 2), agent('commit', 4), agent('notes', 9)],
  edges: [
    edge('implement', 'tests', 'always'),
    edge('tests', 'implement', 'fail', 'loopback'),
    edge('reviewers', 'implement', 'fail', 'loopback'),
    edge('commit', 'notes', 'always', 'tool'),
  ],
  ensembles: [ensemble('reviewers', { entry_from_node: 'tests', entry_condition: 'pass', on_pass_to: 'commit' })],
});

test('an ensemble is one vertex placed just after its entry node', () => {
  const { vertices } = buildTopology(implementAndReview, 5);
  assert.deepEqual(
    vertices.map(({ name, kind, position }) => ({ name, kind, position })),
    [
      { name: 'implement', kind: 'agent', position: 1 },
      { name: 'tests', kind: 'check', position: 2 },
      { name: 'commit', kind: 'agent', position: 4 },
      { name: 'notes', kind: 'agent', position: 9 },
      { name: 'reviewers', kind: 'ensemble', position: 2.5 },
    ],
  );
});

test("a node's vertex carries its config, which each run of it is handed; an ensemble's carries none", () => {
  const { vertices } = buildTopology(implementAndReview, 5);
  const byName = new Map(vertices.map((vertex) => [vertex.name, vertex]));
  assert.deepEqual(byName.get('tests')?.config, { command: 'npm test' });
  assert.deepEqual(byName.get('implement')?.config, { max_iterations: 3, prompt_template: 'Work on {{spec_content}} as implement' });
  assert.equal(byName.get('reviewers')?.config, undefined);
});

test('explicit edges and ensemble wiring become steps; wires that never execute are dropped', () => {
  const { edges } = buildTopology(implementAndReview, 5);
  assert.deepEqual(edges, [
    { source: 'implement', target: 'tests', condition: 'always', type: 'flow' },
    { source: 'tests', target: 'implement', condition: 'fail', type: 'loopback' },
    { source: 'reviewers', target: 'implement', condition: 'fail', type: 'loopback' },
    { source: 'tests', target: 'reviewers', condition: 'pass', type: 'flow' },
    { source: 'reviewers', target: 'commit', condition: 'pass', type: 'flow' },
  ]);
});

test('bodies span the ensemble and budgets come from the head, else the loop', () => {
  const topology = buildTopology(implementAndReview, 5);
  assert.deepEqual(topology.bodies, { implement: ['implement', 'reviewers', 'tests'] });
  assert.deepEqual(topology.budgets, { implement: 3 });
  assert.deepEqual(buildTopology(design({ nodes: [agent('a', 1)], edges: [edge('a', 'a', 'fail', 'loopback')] }), 7).budgets, { a: 7 });
});

test('an ensemble heading a loop uses the loop budget', () => {
  const topology = buildTopology(
    design({
      nodes: [agent('start', 1, { max_iterations: 2 }), check('verify', 3)],
      edges: [edge('verify', 'panel', 'fail', 'loopback')],
      ensembles: [ensemble('panel', { entry_from_node: 'start', on_pass_to: 'verify' })],
    }),
    6,
  );
  assert.deepEqual(topology.bodies, { panel: ['panel', 'verify'] });
  assert.deepEqual(topology.budgets, { panel: 6 });
});

test("a head's own max_stalled_rounds wins over the loop's; a topology with no watchdog has no stallLimits", () => {
  const nested = design({
    nodes: [agent('outer', 1, { max_stalled_rounds: 4 }), agent('inner', 2), check('tests', 3)],
    edges: [
      edge('outer', 'inner', 'always'),
      edge('inner', 'tests', 'always'),
      edge('tests', 'inner', 'fail', 'loopback'),
      edge('tests', 'outer', 'pass', 'loopback'),
    ],
  });
  assert.deepEqual(buildTopology(nested, 5, 2).stallLimits, { outer: 4, inner: 2 });
  assert.deepEqual(buildTopology(nested, 5).stallLimits, { outer: 4 });
  assert.equal('stallLimits' in buildTopology(implementAndReview, 5), false);
});

test('a topology survives a JSON round trip unchanged', () => {
  const topology = buildTopology(implementAndReview, 5);
  assert.deepEqual(JSON.parse(JSON.stringify(topology)), topology);
});

test('the entry is the lowest-position vertex no flow step enters; loopbacks do not count', () => {
  assert.equal(entryVertex(buildTopology(implementAndReview, 5)), 'implement');
  const unordered = design({ nodes: [agent('alpha', 5), agent('first', 0), agent('zed', 1)], edges: [edge('alpha', 'first')] });
  assert.equal(entryVertex(buildTopology(unordered, 5)), 'zed');
});

test('entry ties on position are broken by name', () => {
  assert.equal(entryVertex(buildTopology(design({ nodes: [agent('zeta', 1), agent('Beta', 1), agent('alpha', 1)] }), 5)), 'Beta');
});

test('an empty graph has no entry', () => {
  assert.equal(entryVertex(buildTopology(design({}), 5)), null);
});

test('next steps are those whose condition is the outcome or always', () => {
  const topology: Topology = buildTopology(
    design({
      nodes: [router('triage', 1, { bug: ['crash'], docs: ['typo'] }, 'other'), agent('fix', 2), agent('write', 3), agent('log', 4)],
      edges: [edge('triage', 'fix', 'bug'), edge('triage', 'write', 'docs'), edge('triage', 'log', 'always', 'loopback')],
    }),
    5,
  );
  assert.deepEqual(
    nextSteps(topology, 'triage', 'bug').map((step) => step.target),
    ['fix', 'log'],
  );
  assert.deepEqual(
    nextSteps(topology, 'triage', 'other').map((step) => step.target),
    ['log'],
  );
  assert.deepEqual(nextSteps(topology, 'fix', 'pass'), []);
});

test('an ensemble position: its own, else after its entry (chained), else 0', () => {
  const chained = design({
    nodes: [agent('start', 3)],
    ensembles: [
      ensemble('first', { entry_from_node: 'start' }),
      ensemble('second', { entry_from_node: 'first' }),
      ensemble('free'),
      ensemble('placed', { position: 7, entry_from_node: 'start' }),
    ],
  });
  assert.deepEqual(
    chained.ensembles.map((unit) => ensemblePosition(chained, unit)),
    [3.5, 4, 0, 7],
  );
});

test('ensembles entering one another in a ring stop counting where the ring closes', () => {
  const ring = design({ ensembles: [ensemble('a', { entry_from_node: 'b' }), ensemble('b', { entry_from_node: 'a' })] });
  assert.deepEqual(
    ring.ensembles.map((unit) => ensemblePosition(ring, unit)),
    [0.5, 0.5],
  );
});

test('a design holding a quorum node is refused', () => {
  assert.throws(() => buildTopology(design({ nodes: [{ name: 'q', kind: 'quorum', position: 1, config: { min_pass: 1 } }] }), 5), /quorum/);
});

test('topologicalOrder puts every flow source before its target, breaking ties by position', () => {
  const fixLoop = design({
    nodes: [agent('fix', 1), check('tests', 2), agent('implement', 3), agent('commit', 4)],
    edges: [edge('implement', 'tests'), edge('tests', 'fix', 'fail'), edge('fix', 'tests', 'pass', 'loopback'), edge('tests', 'commit')],
  });
  const order = topologicalOrder(buildTopology(fixLoop, 5)).map((vertex) => vertex.name);
  assert.deepEqual(order, ['implement', 'tests', 'fix', 'commit']);
});
