import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Design } from '../../src/domain/design';
import { buildTopology, ensemblePosition, validateDesign } from '../../src/graph';
import { designFromStored, expandDesign, type IdMaker, type StoredGraph } from '../../src/graph/stored-graph';
import { agent, check, design, edge, ensemble } from '../helpers/designs';

const EMPTY: StoredGraph = { nodes: [], edges: [], ensembles: [] };

function idMaker(): IdMaker {
  let next = 0;
  return (prefix) => `${prefix}_${++next}`;
}

/** The design as the store gives it back: expanded into member and quorum nodes, then folded again. */
function roundTrip(subject: Design): Design {
  return designFromStored(expandDesign('loop_1', subject, EMPTY, idMaker()));
}

function issuesOf(subject: Design): string[] {
  return validateDesign(subject).map((issue) => `${issue.field}: ${issue.message}`);
}

/** check gates either way into the panel: on pass straight in, on fail through fix. */
const twoEntries = design({
  nodes: [check('tests', 1), agent('fix', 2), agent('commit', 5)],
  edges: [edge('tests', 'fix', 'fail')],
  ensembles: [
    ensemble('panel', {
      entry_from: [
        { node: 'tests', condition: 'pass' },
        { node: 'fix', condition: 'pass' },
      ],
      on_pass_to: 'commit',
    }),
  ],
});

/** Two quorums in a row, the first routing to the second with no node between them. */
const chained = design({
  nodes: [agent('draft', 1), agent('ship', 9)],
  ensembles: [
    ensemble('drafters', { entry_from: [{ node: 'draft' }], on_pass_to: { ensemble: 'reviewers' } }),
    ensemble('reviewers', { on_pass_to: 'ship', on_fail_to: { ensemble: 'drafters' } }),
  ],
});

test('an ensemble may have several entries, each an executed step on its own condition', () => {
  assert.deepEqual(issuesOf(twoEntries), []);
  const steps = buildTopology(twoEntries, 3).edges.filter((step) => step.target === 'panel');
  assert.deepEqual(
    steps.map((step) => `${step.source} -${step.condition}-> ${step.target}`),
    ['tests -pass-> panel', 'fix -pass-> panel'],
  );
});

test('an ensemble routes to another as {"ensemble": name}, and the walk steps from quorum to quorum', () => {
  const chain = design({ ...chained, ensembles: [chained.ensembles[0], ensemble('reviewers', { on_pass_to: 'ship' })] });
  assert.deepEqual(issuesOf(chain), []);
  assert.deepEqual(
    buildTopology(chain, 3).edges.map((step) => `${step.source} -${step.condition}-> ${step.target}`),
    ['draft -always-> drafters', 'drafters -pass-> reviewers', 'reviewers -pass-> ship'],
  );
});

test('a chain routing back to its first ensemble is a flow cycle, refused with the loopback hint', () => {
  const issues = issuesOf(chained);
  assert.equal(issues.length, 1, issues.join('\n'));
  assert.match(issues[0], /^ensembles\[1\]\.on_fail_to: this flow edge closes the cycle drafters -> reviewers -> drafters/);
  assert.match(issues[0], /"type":"loopback"/);
});

test('entries and ensemble targets that name nothing, the wrong kind or the ensemble itself are refused, each at its field', () => {
  const refused = (fields: Partial<Design['ensembles'][number]>) =>
    issuesOf(design({ nodes: [agent('a', 1)], ensembles: [ensemble('panel', fields), ensemble('other')] }));
  assert.deepEqual(refused({ entry_from: [{ node: 'ghost' }] }), [
    "ensembles[0].entry_from[0].node: 'ghost' is not a node or ensemble of this design; use one of: a, panel, other",
  ]);
  assert.deepEqual(refused({ entry_from: [{ ensemble: 'a' }] }), [
    `ensembles[0].entry_from[0].ensemble: 'a' is a node, not an ensemble; write {"node": "a"}`,
  ]);
  assert.deepEqual(refused({ entry_from: [{ node: 'other' }] }), [
    `ensembles[0].entry_from[0].node: 'other' is an ensemble, not a node; write {"ensemble": "other"}`,
  ]);
  assert.match(
    refused({ entry_from: [{ ensemble: 'panel' }] }).join(),
    /^ensembles\[0\]\.entry_from\[0\]: this flow edge closes the cycle panel -> panel/,
  );
  assert.deepEqual(refused({ on_pass_to: { ensemble: 'ghost' } }), [
    "ensembles[0].on_pass_to.ensemble: 'ghost' is not a node or ensemble of this design; use one of: a, panel, other",
  ]);
  assert.deepEqual(refused({ on_fail_to: { ensemble: 'a' } }), [
    `ensembles[0].on_fail_to.ensemble: 'a' is a node, not an ensemble; write {"node": "a"}`,
  ]);
  assert.match(
    refused({ on_pass_to: { ensemble: 'panel' } }).join(),
    /^ensembles\[0\]\.on_pass_to: this flow edge closes the cycle panel -> panel/,
  );
});

test('a second entry from the same vertex, or entry_from beside entry_from_node, is refused', () => {
  const twice = design({
    nodes: [agent('a', 1)],
    ensembles: [
      ensemble('panel', {
        entry_from: [
          { node: 'a', condition: 'pass' },
          { node: 'a', condition: 'fail' },
        ],
      }),
    ],
  });
  assert.deepEqual(issuesOf(twice), [
    "ensembles[0].entry_from[1]: repeats entry_from[0]: 'panel' already has an entry from 'a'; keep one (its condition says which outcomes enter, always for every one)",
  ]);
  const both = design({
    nodes: [agent('a', 1), agent('b', 2)],
    ensembles: [ensemble('panel', { entry_from: [{ node: 'a' }], entry_from_node: 'b' })],
  });
  assert.deepEqual(
    validateDesign(both).map((issue) => issue.field),
    ['ensembles[0].entry_from_node'],
  );
  assert.deepEqual(issuesOf(design({ nodes: [agent('a', 1)], ensembles: [ensemble('panel', { entry_from: [{ condition: 'pass' }] })] })), [
    'ensembles[0].entry_from[0].node: give either node or ensemble: the vertex this entry comes from',
  ]);
});

test('an ensemble without a position sits just after the last vertex wired into it', () => {
  assert.equal(ensemblePosition(twoEntries, twoEntries.ensembles[0]), 2.5);
  const chain = design({
    nodes: [agent('draft', 1), agent('late', 6)],
    ensembles: [
      ensemble('drafters', { entry_from: [{ node: 'draft' }], on_pass_to: { ensemble: 'reviewers' } }),
      ensemble('reviewers', { entry_from: [{ node: 'late' }] }),
      ensemble('after-drafters', { entry_from: [{ ensemble: 'drafters', condition: 'always' }] }),
    ],
  });
  assert.deepEqual(
    chain.ensembles.map((unit) => ensemblePosition(chain, unit)),
    [1.5, 6.5, 2],
  );
});

test('the store keeps entries and chains as edges and gives them back as entry_from and {"ensemble": name}', () => {
  const chain = design({ ...chained, ensembles: [chained.ensembles[0], ensemble('reviewers', { on_pass_to: 'ship' })] });
  const back = roundTrip(chain);
  assert.deepEqual(back.edges, []);
  assert.deepEqual(
    back.ensembles.map(({ name, entry_from, on_pass_to, on_fail_to }) => ({ name, entry_from, on_pass_to, on_fail_to })),
    [
      {
        name: 'drafters',
        entry_from: [{ node: 'draft', condition: 'always' }],
        on_pass_to: { ensemble: 'reviewers' },
        on_fail_to: undefined,
      },
      { name: 'reviewers', entry_from: undefined, on_pass_to: 'ship', on_fail_to: undefined },
    ],
  );
  assert.deepEqual(roundTrip(back), back);
  const panel = roundTrip(twoEntries).ensembles[0];
  assert.deepEqual(panel.entry_from, [
    { node: 'fix', condition: 'pass' },
    { node: 'tests', condition: 'pass' },
  ]);
});

test('the older entry_from_node comes back as a list of one entry, naming an ensemble as one', () => {
  const older = design({
    nodes: [agent('a', 1)],
    ensembles: [ensemble('first', { entry_from_node: 'a', entry_condition: 'pass' }), ensemble('second', { entry_from_node: 'first' })],
  });
  assert.deepEqual(issuesOf(older), []);
  const back = roundTrip(older);
  assert.deepEqual(
    back.ensembles.map((unit) => [unit.entry_from, unit.entry_from_node]),
    [
      [[{ node: 'a', condition: 'pass' }], undefined],
      [[{ ensemble: 'first', condition: 'always' }], undefined],
    ],
  );
});

test('a second flow edge into an ensemble from one vertex stays an edge of its own', () => {
  const both = design({
    nodes: [agent('a', 1)],
    edges: [edge('a', 'panel', 'fail')],
    ensembles: [ensemble('panel', { entry_from: [{ node: 'a', condition: 'pass' }] })],
  });
  assert.deepEqual(issuesOf(both), []);
  const back = roundTrip(both);
  assert.deepEqual(back.ensembles[0].entry_from, [{ node: 'a', condition: 'fail' }]);
  assert.deepEqual(back.edges, [edge('a', 'panel', 'pass')]);
  assert.deepEqual(issuesOf(back), []);
});
