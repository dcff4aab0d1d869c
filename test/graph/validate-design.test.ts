import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Design } from '../../src/domain/design';
import type { Issue } from '../../src/domain/errors';
import { memberNodeName, quorumNodeName, validateDesign } from '../../src/graph';
import { agent, check, design, edge, ensemble, router } from '../helpers/designs';

/** The seed's hand-written example (seeds/loops.txt, "Export and import"), as a design. */
const seedExample = design({
  nodes: [
    agent('implementer', 1, { prompt_template: 'Implement: {{spec_content}}', timeout_minutes: 30 }),
    agent('committer', 4, { prompt_template: 'Review the feedback and commit if satisfied.', commit_rights: true, timeout_minutes: 15 }),
  ],
  ensembles: [
    ensemble('reviewers', {
      prompt_template: 'Review this diff for correctness: {{previous_feedback}}',
      entry_from_node: 'implementer',
      entry_condition: 'always',
      on_pass_to: 'committer',
      min_pass: 2,
      timeout_minutes: 20,
      members: [{}, {}],
    }),
  ],
});

/** Asserts the design has exactly one issue, at `field`, and returns its message. */
function onlyIssue(subject: Design, field: string): string {
  const issues = validateDesign(subject);
  assert.deepEqual(
    issues.map((issue) => issue.field),
    [field],
    JSON.stringify(issues, null, 2),
  );
  return issues[0].message;
}

/** Three plain agents a, b and c at positions 1, 2 and 3. */
const abc = [agent('a', 1), agent('b', 2), agent('c', 3)];

function fields(issues: Issue[]): string[] {
  return issues.map((issue) => issue.field);
}

test('valid designs have no issues', () => {
  assert.deepEqual(validateDesign(seedExample), []);
  const rich = design({
    nodes: [
      agent('implement', 1, { max_iterations: 4, require_report: true }),
      check('tests', 2, 'npm test -- --grep "{{spec_name}}" && test -n "{{spec_committed_head}}"'),
      router('triage', 3, { bug: ['crash'], style: ['lint'] }, 'other'),
      { name: 'has-summary', kind: 'gate', position: 4, config: { output_contains: 'Summary' } },
      agent('fix', 5),
      agent('commit', 6, { commit_rights: true }),
      agent('helper', 7),
    ],
    edges: [
      edge('implement', 'tests', 'always'),
      edge('tests', 'triage', 'fail'),
      edge('tests', 'has-summary', 'pass'),
      edge('triage', 'fix', 'bug'),
      edge('triage', 'implement', 'style', 'loopback'),
      edge('triage', 'commit', 'other'),
      edge('fix', 'tests', 'fail', 'loopback'),
      edge('fix', 'commit', 'pass'),
      edge('has-summary', 'panel', 'pass'),
      edge('has-summary', 'has-summary', 'fail', 'loopback'),
      edge('panel', 'implement', 'fail', 'loopback'),
      edge('commit', 'helper', 'always', 'tool'),
      edge('helper', 'implement', 'always', 'agent_result'),
    ],
    ensembles: [
      ensemble('panel', { on_pass_to: 'commit', members: [{ prompt_override: 'Look for security holes in {{previous_output}}' }, {}, {}] }),
    ],
  });
  assert.deepEqual(validateDesign(rich), []);
});

test('a node config is checked against its kind, naming the field', () => {
  const negative = { ...check('tests', 2), config: { command: 'make', timeout_minutes: -1 } };
  const message = onlyIssue(design({ nodes: [agent('a', 1), negative] }), 'nodes[1].config.timeout_minutes');
  assert.match(message, /positive number of minutes/);
});

test('a missing config field is reported as required', () => {
  const promptless = { ...agent('a', 1), config: { timeout_minutes: 5 } };
  const message = onlyIssue(design({ nodes: [promptless] }), 'nodes[0].config.prompt_template');
  assert.equal(message, 'is required: give it a string value');
});

test('an unknown config key is refused with the keys the kind takes', () => {
  const prompted = { ...check('tests', 1), config: { command: 'make', prompt_template: 'x' } };
  const message = onlyIssue(design({ nodes: [prompted] }), 'nodes[0].config');
  assert.match(message, /prompt_template/);
  assert.match(message, /allowed keys: command, timeout_minutes, idle_timeout_minutes, max_iterations/);
});

test('a router route label may not be pass, fail or always, and says so', () => {
  const message = onlyIssue(design({ nodes: [router('triage', 1, { pass: ['ok'] }, 'other')] }), 'nodes[0].config.routes.pass');
  assert.match(message, /route labels cannot be pass, fail or always/);
});

test('fields inside arrays are named with their index', () => {
  const emptyToken = router('triage', 1, { bug: [''] }, 'other');
  assert.match(onlyIssue(design({ nodes: [emptyToken] }), 'nodes[0].config.routes.bug[0]'), />=1 characters/);
  const member = ensemble('panel', { members: [{}, { timeout_minutes: 0 }] });
  assert.match(onlyIssue(design({ ensembles: [member] }), 'ensembles[0].members[1].timeout_minutes'), /positive number of minutes/);
});

test('a node name may not contain "/"', () => {
  assert.match(onlyIssue(design({ nodes: [agent('team/lead', 1)] }), 'nodes[0].name'), /must not contain "\/"/);
});

test('quorum nodes cannot be written directly', () => {
  const message = onlyIssue(design({ nodes: [{ name: 'q', kind: 'quorum', position: 1, config: { min_pass: 1 } }] }), 'nodes[0].kind');
  assert.match(message, /quorum nodes are made by ensembles; use loop_add_ensemble/);
});

test('an ensemble needs 2 to 8 members', () => {
  const tooFew = onlyIssue(design({ ensembles: [ensemble('solo', { members: [{}] })] }), 'ensembles[0].members');
  assert.match(tooFew, /at least 2 members/);
  const crowd = ensemble('crowd', { members: Array.from({ length: 9 }, () => ({})) });
  const tooMany = onlyIssue(design({ ensembles: [crowd] }), 'ensembles[0].members');
  assert.match(tooMany, /at most 8 members/);
});

test('an ensemble min_pass cannot exceed its members', () => {
  const message = onlyIssue(design({ ensembles: [ensemble('pair', { min_pass: 3 })] }), 'ensembles[0].min_pass');
  assert.match(message, /cannot exceed the number of members/);
});

test('an unknown ensemble field is refused with the fields an ensemble takes', () => {
  const typo = { ...ensemble('pair'), from_node: 'a' } as Design['ensembles'][number];
  const message = onlyIssue(design({ ensembles: [typo] }), 'ensembles[0]');
  assert.match(message, /from_node/);
  assert.match(message, /entry_from_node/);
});

test('names are unique across nodes and ensembles', () => {
  const message = onlyIssue(design({ nodes: [agent('review', 1), agent('review', 2)], ensembles: [ensemble('review')] }), 'nodes[1].name');
  assert.match(message, /'review' names nodes\[0\]\.name and nodes\[1\]\.name and ensembles\[0\]\.name/);
  assert.match(message, /rename/);
});

test('an edge endpoint must exist, and the issue lists the names that do', () => {
  const dangling = design({ nodes: [agent('a', 1), agent('b', 2)], ensembles: [ensemble('panel')], edges: [edge('a', 'c')] });
  const message = onlyIssue(dangling, 'edges[0].target');
  assert.match(message, /'c' is not a node or ensemble/);
  assert.match(message, /a, b, panel/);
});

test('ensemble wiring endpoints must exist', () => {
  const panel = ensemble('panel', { entry_from_node: 'ghost', on_fail_to: 'nowhere' });
  const issues = validateDesign(design({ nodes: [agent('a', 1)], ensembles: [panel] }));
  assert.deepEqual(fields(issues), ['ensembles[0].entry_from_node', 'ensembles[0].on_fail_to']);
  assert.match(issues[0].message, /'ghost'/);
});

test('non-executed wires must still name existing endpoints', () => {
  assert.match(onlyIssue(design({ nodes: [agent('a', 1)], edges: [edge('a', 'ghost', 'always', 'tool')] }), 'edges[0].target'), /'ghost'/);
});

test('edges cannot reach inside an ensemble', () => {
  const member = memberNodeName('panel', 0);
  const inward = design({ nodes: [agent('a', 1)], ensembles: [ensemble('panel')], edges: [edge('a', member)] });
  const message = onlyIssue(inward, 'edges[0].target');
  assert.equal(member, 'panel/member-1');
  assert.match(message, /'panel\/member-1' is a member or quorum node inside ensemble 'panel'/);
  assert.match(message, /by its name 'panel'/);
});

test('ensembles cannot be nested: wiring may not name another ensemble’s member or quorum', () => {
  const quorum = quorumNodeName('inner');
  const nested = design({
    nodes: [agent('a', 1)],
    ensembles: [ensemble('inner'), ensemble('outer', { entry_from_node: quorum, on_pass_to: memberNodeName('inner', 1) })],
  });
  const issues = validateDesign(nested);
  assert.deepEqual(fields(issues), ['ensembles[1].entry_from_node', 'ensembles[1].on_pass_to']);
  assert.match(issues[0].message, /'inner\/quorum' is a member or quorum node inside ensemble 'inner'/);
  assert.match(issues[1].message, /'inner\/member-2'/);
});

test('an ensemble may be wired to another ensemble as a unit', () => {
  const chained = design({
    nodes: [agent('a', 1)],
    ensembles: [ensemble('drafters', { entry_from_node: 'a', on_pass_to: 'reviewers' }), ensemble('reviewers')],
  });
  assert.deepEqual(validateDesign(chained), []);
});

test('a flow edge closing a cycle is refused with the cycle and the loopback hint', () => {
  const cyclic = design({
    nodes: abc,
    edges: [edge('c', 'a', 'fail'), edge('a', 'b'), edge('b', 'c')],
  });
  const message = onlyIssue(cyclic, 'edges[0]');
  assert.match(message, /closes the cycle a -> b -> c -> a/);
  assert.match(message, /"type": "loopback"/);
  assert.deepEqual(validateDesign({ ...cyclic, edges: [{ ...cyclic.edges[0], type: 'loopback' }, ...cyclic.edges.slice(1)] }), []);
});

test('a flow edge from a node to itself is a cycle', () => {
  assert.match(onlyIssue(design({ nodes: [agent('a', 1)], edges: [edge('a', 'a', 'fail')] }), 'edges[0]'), /cycle a -> a/);
});

test('ensemble wiring that closes a cycle suggests the loopback edge to use instead', () => {
  const cyclic = design({
    nodes: [agent('implement', 1)],
    ensembles: [ensemble('reviewers', { entry_from_node: 'implement', on_fail_to: 'implement' })],
  });
  const message = onlyIssue(cyclic, 'ensembles[0].on_fail_to');
  assert.match(message, /implement -> reviewers -> implement/);
  assert.ok(message.includes('{"source":"reviewers","target":"implement","condition":"fail","type":"loopback"}'), message);
});

test('edges leaving a router take its labels, its fallback or always', () => {
  const triage = router('triage', 1, { bug: ['crash'], style: ['lint'] }, 'other');
  const message = onlyIssue(design({ nodes: [triage, agent('fix', 2)], edges: [edge('triage', 'fix', 'pass')] }), 'edges[0].condition');
  assert.match(message, /'pass' is not an outcome of 'triage'/);
  assert.match(message, /bug, style, other, always/);
});

test('edges leaving agents and checks take pass, fail, error or always', () => {
  const message = onlyIssue(design({ nodes: abc, edges: [edge('a', 'b', 'bug')] }), 'edges[0].condition');
  assert.match(message, /pass, fail, error, always/);
});

test('an ensemble entry condition is checked against its entry node', () => {
  const triage = router('triage', 1, { bug: ['crash'] }, 'other');
  const entered = (entry_condition: string) =>
    design({ nodes: [triage], ensembles: [ensemble('panel', { entry_from_node: 'triage', entry_condition })] });
  assert.deepEqual(validateDesign(entered('bug')), []);
  assert.match(onlyIssue(entered('fail'), 'ensembles[0].entry_condition'), /bug, other, always/);
});

test('conditions of wires that never execute are not judged', () => {
  assert.deepEqual(validateDesign(design({ nodes: abc, edges: [edge('a', 'b', 'whenever', 'tool')] })), []);
});

test('two edges matching one outcome conflict, and the issue names both', () => {
  const message = onlyIssue(design({ nodes: abc, edges: [edge('a', 'b', 'pass'), edge('a', 'c', 'pass')] }), 'edges[1]');
  assert.match(message, /edges\[0\] \(a -> b, pass\) and edges\[1\] \(a -> c, pass\) match outcome 'pass' of 'a'/);
});

test('an always edge conflicts with every other edge leaving the vertex', () => {
  const message = onlyIssue(design({ nodes: abc, edges: [edge('a', 'b', 'always'), edge('a', 'c', 'fail', 'loopback')] }), 'edges[1]');
  assert.match(message, /match outcome 'fail' of 'a'/);
  const twoAlways = onlyIssue(design({ nodes: abc, edges: [edge('a', 'b', 'always'), edge('a', 'c', 'always')] }), 'edges[1]');
  assert.match(twoAlways, /match outcomes 'pass', 'fail' of 'a'/);
});

test('pass and fail edges leaving one vertex do not conflict', () => {
  assert.deepEqual(validateDesign(design({ nodes: abc, edges: [edge('a', 'b', 'pass'), edge('a', 'c', 'fail')] })), []);
});

test('a router label can be taken by one edge only', () => {
  const triage = router('triage', 1, { bug: ['crash'] }, 'other');
  const twice = design({ nodes: [triage, ...abc], edges: [edge('triage', 'a', 'bug'), edge('triage', 'b', 'bug')] });
  const message = onlyIssue(twice, 'edges[1]');
  assert.match(message, /match outcome 'bug' of 'triage'/);
});

test('ensemble exit wiring conflicts with an explicit edge for the same outcome', () => {
  const doubled = design({ nodes: abc, ensembles: [ensemble('panel', { on_pass_to: 'a' })], edges: [edge('panel', 'b', 'pass')] });
  const message = onlyIssue(doubled, 'ensembles[0].on_pass_to');
  assert.match(message, /edges\[0\] \(panel -> b, pass\) and ensembles\[0\]\.on_pass_to \(panel -> a, pass\)/);
});

test('unknown placeholders in agent prompts are refused with the allowed list', () => {
  const prompt = 'Fix {{spec_content}} at {{spec_start_head}} for {{ticket}}';
  const message = onlyIssue(design({ nodes: [agent('a', 1, { prompt_template: prompt })] }), 'nodes[0].config.prompt_template');
  assert.match(message, /unknown placeholder \{\{spec_start_head\}\}, \{\{ticket\}\}/);
  assert.match(message, /\{\{previous_feedback\}\}/);
});

test('check commands may use the git heads but no unknown placeholder', () => {
  assert.deepEqual(validateDesign(design({ nodes: [check('c', 1, 'git diff {{spec_start_head}}..{{spec_committed_head}}')] })), []);
  const message = onlyIssue(design({ nodes: [check('c', 1, 'echo {{branch}}')] }), 'nodes[0].config.command');
  assert.match(message, /\{\{branch\}\}.*\{\{spec_committed_head\}\}/);
});

test('ensemble prompts and member overrides are checked as agent prompts', () => {
  const members = [{}, { prompt_override: 'Judge {{spec_committed_head}}' }];
  const issues = validateDesign(design({ ensembles: [ensemble('panel', { prompt_template: 'Review {{diff}}', members })] }));
  assert.deepEqual(fields(issues), ['ensembles[0].prompt_template', 'ensembles[0].members[1].prompt_override']);
  assert.match(issues[0].message, /\{\{diff\}\}/);
});

test('loopbacks may point anywhere, including back at their own source', () => {
  const loops = design({
    nodes: abc,
    edges: [
      edge('a', 'b'),
      edge('b', 'c'),
      edge('c', 'c', 'fail', 'loopback'),
      edge('b', 'a', 'fail', 'loopback'),
      edge('a', 'c', 'fail', 'loopback'),
    ],
  });
  assert.deepEqual(validateDesign(loops), []);
});

test('every problem is reported, not just the first', () => {
  const broken = design({
    nodes: [agent('a', 1, { timeout_minutes: 0 }), agent('a', 2)],
    edges: [edge('a', 'ghost')],
    ensembles: [ensemble('solo', { members: [{}] })],
  });
  assert.deepEqual(fields(validateDesign(broken)), [
    'nodes[0].config.timeout_minutes',
    'ensembles[0].members',
    'nodes[1].name',
    'edges[0].target',
  ]);
});

test('a gate pattern the linear-time engine cannot compile is refused, naming the field', () => {
  for (const output_matches of ['(a)\\1', 'x(?=y)', '(unclosed']) {
    const gate = { name: 'g', kind: 'gate' as const, position: 2, config: { output_matches } };
    assert.match(onlyIssue(design({ nodes: [agent('a', 1), gate] }), 'nodes[1].config.output_matches'), /linear time/);
  }
  assert.deepEqual(
    validateDesign(design({ nodes: [{ name: 'g', kind: 'gate' as const, position: 1, config: { output_matches: '^(a+)+$' } }] })),
    [],
  );
});
