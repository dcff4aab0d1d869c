// Graph edits through the services: each validates the whole design, refuses with field-named issues
// while changing nothing, and keeps the ids of every part it leaves alone.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import {
  addEdge,
  addEnsemble,
  addNode,
  removeEdge,
  removeEnsemble,
  removeNode,
  updateEdge,
  updateEnsemble,
  updateNode,
} from '../../src/client/graph-service';
import { createLoop, getLoop } from '../../src/client/loops-service';
import { BUILTIN_BLUEPRINTS } from '../../src/store/builtin-blueprints';
import { getNodeRun, insertNodeRun } from '../../src/store/node-runs-repository';
import { assertRefused, useTestStore, type ExpectedRefusal } from '../helpers/store';

const store = useTestStore();

const agentConfig = (prompt = 'Implement {{spec_content}}') => ({ prompt_template: prompt });

/** implement -> test (pass), and a router `triage` after test's fail, with routes bug and flaky. */
async function baseLoop(): Promise<string> {
  const loop = await createLoop(store.ctx, { name: 'graph', workdir: store.workdir() });
  await addNode(store.ctx, { loop_id: loop.id, name: 'implement', kind: 'agent', config: agentConfig() });
  await addNode(store.ctx, { loop_id: loop.id, name: 'test', kind: 'check', config: { command: 'npm test' } });
  await addNode(store.ctx, {
    loop_id: loop.id,
    name: 'triage',
    kind: 'router',
    config: { routes: { bug: ['BUG'], flaky: ['FLAKY'] }, fallback: 'bug' },
  });
  await addEdge(store.ctx, { loop_id: loop.id, source: 'implement', target: 'test' });
  await addEdge(store.ctx, { loop_id: loop.id, source: 'test', target: 'triage', condition: 'fail' });
  return loop.id;
}

async function nodeId(loopId: string, name: string): Promise<string> {
  const node = (await getLoop(store.ctx, loopId)).nodes.find((candidate) => candidate.name === name);
  assert.ok(node, `no node ${name}`);
  return node.id;
}

/** The refusal names its field and the loop, graph and specs are exactly as before. */
async function assertRefusedUnchanged(loopId: string, work: () => Promise<unknown>, expected: ExpectedRefusal): Promise<void> {
  const before = await getLoop(store.ctx, loopId);
  await assertRefused(work(), expected);
  assert.deepEqual(await getLoop(store.ctx, loopId), before);
}

describe('graph service: adding and editing', () => {
  let loopId: string;
  beforeEach(async () => {
    loopId = await baseLoop();
  });

  it('adds nodes after every other one by default and edges by name, returning them with ids', async () => {
    const fix = await addNode(store.ctx, { loop_id: loopId, name: 'fix', kind: 'agent', config: agentConfig('Fix {{previous_feedback}}') });
    assert.equal(fix.position, 4);
    assert.match(fix.id, /^node_/);
    const edge = await addEdge(store.ctx, { loop_id: loopId, source: 'triage', target: 'fix', condition: 'bug' });
    assert.deepEqual(
      {
        source: edge.source,
        target: edge.target,
        condition: edge.condition,
        type: edge.type,
        source_id: edge.source_id,
        target_id: edge.target_id,
      },
      { source: 'triage', target: 'fix', condition: 'bug', type: 'flow', source_id: await nodeId(loopId, 'triage'), target_id: fix.id },
    );
  });

  it('keeps the ids of untouched nodes and edges, and node runs stay attached through edits and renames', async () => {
    const before = await getLoop(store.ctx, loopId);
    const implementId = await nodeId(loopId, 'implement');
    const run = await insertNodeRun(store.ctx.db, {
      loop_id: loopId,
      node_id: implementId,
      node_name: 'implement',
      kind: 'agent',
      round: 1,
    });

    await updateNode(store.ctx, { node_id: await nodeId(loopId, 'test'), config: { command: 'make check' } });
    await updateNode(store.ctx, { node_id: implementId, name: 'build' });
    await addNode(store.ctx, { loop_id: loopId, name: 'unrelated', kind: 'check', config: { command: 'true' } });

    const after = await getLoop(store.ctx, loopId);
    const ids = (loop: typeof before) =>
      loop.nodes
        .filter((node) => node.name !== 'unrelated')
        .map((node) => node.id)
        .sort();
    assert.deepEqual(ids(after), ids(before));
    assert.deepEqual(after.edges.map((edge) => edge.id).sort(), before.edges.map((edge) => edge.id).sort());
    assert.deepEqual(
      after.edges.map((edge) => `${edge.source}->${edge.target}`).sort(),
      ['build->test', 'test->triage'],
      'edges follow the rename',
    );
    assert.equal((await getNodeRun(store.ctx.db, run.id))?.node_id, implementId);
  });

  it('updates an edge in place and removes it; removing a node removes its edges', async () => {
    const [first] = (await getLoop(store.ctx, loopId)).edges.filter((edge) => edge.source === 'implement');
    const updated = await updateEdge(store.ctx, { edge_id: first.id, condition: 'always' });
    assert.equal(updated.id, first.id);
    assert.equal(updated.condition, 'always');

    const removed = await removeEdge(store.ctx, { edge_id: first.id });
    assert.equal(removed.id, first.id);
    assert.deepEqual(
      (await getLoop(store.ctx, loopId)).edges.map((edge) => edge.source),
      ['test'],
    );

    await removeNode(store.ctx, { node_id: await nodeId(loopId, 'triage') });
    const loop = await getLoop(store.ctx, loopId);
    assert.deepEqual(
      loop.nodes.map((node) => node.name),
      ['implement', 'test'],
    );
    assert.deepEqual(loop.edges, []);
  });

  it('starts a node from a blueprint, laying config_overrides over its config', async () => {
    const node = await addNode(store.ctx, {
      loop_id: loopId,
      name: 'coder',
      blueprint: 'implementer-claude',
      config_overrides: { model: 'opus', timeout_minutes: 5 },
    });
    const blueprint = BUILTIN_BLUEPRINTS.find((candidate) => candidate.name === 'implementer-claude')!;
    assert.equal(node.kind, blueprint.kind);
    assert.deepEqual(node.config, { ...blueprint.config, model: 'opus', timeout_minutes: 5 });
  });

  it('refuses an unknown blueprint with the list of every blueprint', async () => {
    const error = await assertRefused(addNode(store.ctx, { loop_id: loopId, name: 'x', blueprint: 'no-such' }), {
      code: 'invalid_input',
      field: 'blueprint',
    });
    for (const { name } of BUILTIN_BLUEPRINTS) assert.match(error.message, new RegExp(name));
  });
});

describe('graph service: refusals change nothing', () => {
  let loopId: string;
  beforeEach(async () => {
    loopId = await baseLoop();
  });

  it('a duplicate node name', () =>
    assertRefusedUnchanged(
      loopId,
      () => addNode(store.ctx, { loop_id: loopId, name: 'test', kind: 'check', config: { command: 'true' } }),
      {
        code: 'invalid_input',
        field: 'name',
        message: /unique within a loop/,
      },
    ));

  it('a NUL byte in a check command or an agent prompt', async () => {
    await assertRefusedUnchanged(
      loopId,
      () => addNode(store.ctx, { loop_id: loopId, name: 'nul', kind: 'check', config: { command: 'echo a\u0000b' } }),
      {
        code: 'invalid_input',
        field: 'config.command',
        message: /NUL bytes/,
      },
    );
    await assertRefusedUnchanged(
      loopId,
      () => addNode(store.ctx, { loop_id: loopId, name: 'nul', kind: 'agent', config: agentConfig('a\u0000b') }),
      { code: 'invalid_input', field: 'config.prompt_template', message: /NUL bytes/ },
    );
  });

  it('an edge to a missing node', () =>
    assertRefusedUnchanged(loopId, () => addEdge(store.ctx, { loop_id: loopId, source: 'test', target: 'nowhere', condition: 'pass' }), {
      code: 'invalid_input',
      field: 'target',
      message: /'nowhere' is not a node or ensemble.*implement/,
    }));

  it('a flow edge closing a cycle, with the loopback hint', () =>
    assertRefusedUnchanged(loopId, () => addEdge(store.ctx, { loop_id: loopId, source: 'triage', target: 'implement', condition: 'bug' }), {
      code: 'invalid_input',
      field: 'edge',
      message: /closes the cycle .*"type": "loopback"/,
    }));

  it('accepts the same edge marked loopback', async () => {
    const edge = await addEdge(store.ctx, { loop_id: loopId, source: 'triage', target: 'implement', condition: 'bug', type: 'loopback' });
    assert.equal(edge.type, 'loopback');
  });

  it('two edges matching one outcome', () =>
    assertRefusedUnchanged(
      loopId,
      () => addEdge(store.ctx, { loop_id: loopId, source: 'implement', target: 'triage', condition: 'always' }),
      {
        code: 'invalid_input',
        field: 'edge',
        message: /only one executed edge may leave a vertex/,
      },
    ));

  it('a router edge with an unknown label', () =>
    assertRefusedUnchanged(
      loopId,
      () => addEdge(store.ctx, { loop_id: loopId, source: 'triage', target: 'implement', condition: 'feature', type: 'loopback' }),
      {
        code: 'invalid_input',
        field: 'condition',
        message: /not an outcome of 'triage'.*bug, flaky, always/,
      },
    ));

  it('a quorum node', () =>
    assertRefusedUnchanged(loopId, () => addNode(store.ctx, { loop_id: loopId, name: 'q', kind: 'quorum', config: { min_pass: 1 } }), {
      code: 'invalid_input',
      field: 'kind',
      message: /quorum nodes are made by ensembles; use loop_add_ensemble/,
    }));

  it('an unknown placeholder, with the allowed list', () =>
    assertRefusedUnchanged(loopId, () => updateNodeByName(loopId, 'implement', { config: agentConfig('Do {{task}}') }), {
      code: 'invalid_input',
      field: 'config.prompt_template',
      message: /unknown placeholder \{\{task\}\}; use only .*\{\{spec_content\}\}.*\{\{previous_feedback\}\}/,
    }));

  it('an ensemble of one member', () =>
    assertRefusedUnchanged(
      loopId,
      () => addEnsemble(store.ctx, { loop_id: loopId, name: 'solo', prompt_template: 'Review', members: [{}] }),
      {
        code: 'invalid_input',
        field: 'members',
        message: /at least 2 members/,
      },
    ));

  it('an ensemble of nine members', () =>
    assertRefusedUnchanged(
      loopId,
      () =>
        addEnsemble(store.ctx, {
          loop_id: loopId,
          name: 'crowd',
          prompt_template: 'Review',
          members: Array.from({ length: 9 }, () => ({})),
        }),
      { code: 'invalid_input', field: 'members', message: /at most 8 members/ },
    ));

  it('a nested ensemble', async () => {
    await addEnsemble(store.ctx, {
      loop_id: loopId,
      name: 'reviewers',
      prompt_template: 'Review',
      members: [{}, {}],
      from_node: 'test',
      condition: 'pass',
    });
    await assertRefusedUnchanged(
      loopId,
      () =>
        addEnsemble(store.ctx, {
          loop_id: loopId,
          name: 'inner',
          prompt_template: 'Again',
          members: [{}, {}],
          from_node: 'reviewers/member-1',
        }),
      { code: 'invalid_input', field: 'entry_from_node', message: /ensembles cannot be nested/ },
    );
  });

  it('a negative quorum_grace_minutes', () =>
    assertRefusedUnchanged(
      loopId,
      () =>
        addEnsemble(store.ctx, { loop_id: loopId, name: 'pair', prompt_template: 'Review', members: [{}, {}], quorum_grace_minutes: -0.5 }),
      { code: 'invalid_input', field: 'quorum_grace_minutes', message: /must be 0 or more minutes/ },
    ));

  it('an idle_timeout_minutes of 0 on an ensemble, and one that is not a number on a member', async () => {
    await assertRefusedUnchanged(
      loopId,
      () =>
        addEnsemble(store.ctx, { loop_id: loopId, name: 'pair', prompt_template: 'Review', members: [{}, {}], idle_timeout_minutes: 0 }),
      { code: 'invalid_input', field: 'idle_timeout_minutes', message: /must be a positive number of minutes/ },
    );
    await addEnsemble(store.ctx, { loop_id: loopId, name: 'pair', prompt_template: 'Review', members: [{}, {}] });
    await assertRefusedUnchanged(
      loopId,
      () => updateEnsemble(store.ctx, { loop_id: loopId, name: 'pair', members: [{ idle_timeout_minutes: 'soon' }, {}] }),
      { code: 'invalid_input', field: 'members.0.idle_timeout_minutes', message: /expected number/ },
    );
  });

  it('an idle_timeout_minutes over a day on a check', () =>
    assertRefusedUnchanged(
      loopId,
      () => updateNodeByName(loopId, 'test', { config: { command: 'npm test', idle_timeout_minutes: 2000 } }),
      { code: 'invalid_input', field: 'config.idle_timeout_minutes', message: /must be at most 1440 minutes/ },
    ));

  it('a kind no ensemble has, and a min_pass or quorum_grace_minutes an ensemble that takes turns cannot use', async () => {
    const pair = { loop_id: loopId, name: 'pair', prompt_template: 'Review', members: [{}, {}] };
    await assertRefusedUnchanged(loopId, () => addEnsemble(store.ctx, { ...pair, kind: 'serial' }), {
      code: 'invalid_input',
      field: 'kind',
      message: /must be "parallel" .*, "cascade" .* or "round_robin"/,
    });
    await assertRefusedUnchanged(loopId, () => addEnsemble(store.ctx, { ...pair, kind: 'cascade', min_pass: 2 }), {
      code: 'invalid_input',
      field: 'min_pass',
      message: /a cascade or round_robin ensemble passes when the one member that ran last passes: min_pass must be 1 or left out/,
    });
    await addEnsemble(store.ctx, { ...pair, quorum_grace_minutes: 1 });
    await assertRefusedUnchanged(loopId, () => updateEnsemble(store.ctx, { loop_id: loopId, name: 'pair', kind: 'round_robin' }), {
      code: 'invalid_input',
      field: 'quorum_grace_minutes',
      message: /applies to a parallel ensemble only .*: remove it or set kind "parallel"/,
    });
    const turned = await updateEnsemble(store.ctx, { loop_id: loopId, name: 'pair', kind: 'round_robin', quorum_grace_minutes: null });
    assert.equal(turned.kind, 'round_robin');
    assert.equal((await updateEnsemble(store.ctx, { loop_id: loopId, name: 'pair', kind: null })).kind, undefined);
  });

  it('a quorum_grace_minutes that is not a number', async () => {
    await addEnsemble(store.ctx, { loop_id: loopId, name: 'pair', prompt_template: 'Review', members: [{}, {}] });
    await assertRefusedUnchanged(loopId, () => updateEnsemble(store.ctx, { loop_id: loopId, name: 'pair', quorum_grace_minutes: '3' }), {
      code: 'invalid_input',
      field: 'quorum_grace_minutes',
      message: /must be a number of minutes, e.g. 0.5/,
    });
  });

  it('quorum_grace_minutes on a node that is no ensemble', async () => {
    await assertRefusedUnchanged(
      loopId,
      () => updateNodeByName(loopId, 'implement', { config: { ...agentConfig(), quorum_grace_minutes: 1 } }),
      {
        code: 'invalid_input',
        field: 'config',
        message:
          /Unrecognized key: "quorum_grace_minutes"; remove it .*quorum_grace_minutes is an ensemble setting: give it to an ensemble with loop_add_ensemble or loop_update_ensemble/,
      },
    );
    await assertRefusedUnchanged(loopId, () => updateEnsemble(store.ctx, { loop_id: loopId, name: 'implement', quorum_grace_minutes: 1 }), {
      code: 'not_found',
      message: /No ensemble is named 'implement' in this loop/,
    });
  });

  it('editing a member node directly', async () => {
    const ensemble = await addEnsemble(store.ctx, { loop_id: loopId, name: 'reviewers', prompt_template: 'Review', members: [{}, {}] });
    await assertRefusedUnchanged(loopId, () => updateNode(store.ctx, { node_id: ensemble.member_node_ids[0], config: agentConfig() }), {
      code: 'refused',
      message: /edit the ensemble with loop_update_ensemble/,
    });
  });

  async function updateNodeByName(loop: string, name: string, changes: Record<string, unknown>) {
    return updateNode(store.ctx, { loop_id: loop, node_id: await nodeId(loop, name), ...changes });
  }
});

describe('graph service: ensembles as units', () => {
  let loopId: string;
  beforeEach(async () => {
    loopId = await baseLoop();
  });

  it('adds an ensemble wired in by from_node and condition, and presents it with its member and quorum ids', async () => {
    const ensemble = await addEnsemble(store.ctx, {
      loop_id: loopId,
      name: 'reviewers',
      prompt_template: 'Review {{previous_output}}',
      members: [{ platform: 'claude' }, { platform: 'codex', prompt_override: 'Be strict about {{spec_name}}' }],
      from_node: 'test',
      condition: 'pass',
      on_fail_to: 'triage',
    });
    assert.deepEqual(ensemble.entry_from, [{ node: 'test', condition: 'pass' }]);
    assert.equal(ensemble.on_fail_to, 'triage');
    const loop = await getLoop(store.ctx, loopId);
    assert.deepEqual(loop.ensembles, [ensemble]);
    const internal = loop.nodes.filter((node) => node.ensemble_id === ensemble.ensemble_id);
    assert.deepEqual(internal.map((node) => node.name).sort(), ['reviewers/member-1', 'reviewers/member-2', 'reviewers/quorum']);
    assert.deepEqual(
      ensemble.member_node_ids,
      internal
        .filter((node) => node.kind === 'agent')
        .sort((a, b) => a.member_index! - b.member_index!)
        .map((node) => node.id),
    );
  });

  it('propagates a new shared prompt to every member without its own prompt_override, keeping their ids', async () => {
    const before = await addEnsemble(store.ctx, {
      loop_id: loopId,
      name: 'reviewers',
      prompt_template: 'Review {{previous_output}}',
      members: [{}, { prompt_override: 'My own review of {{spec_name}}' }],
      from_node: 'test',
      condition: 'pass',
    });
    const after = await updateEnsemble(store.ctx, {
      loop_id: loopId,
      name: 'reviewers',
      prompt_template: 'Review carefully: {{previous_output}}',
    });
    assert.deepEqual(after.member_node_ids, before.member_node_ids);
    const prompts = (await getLoop(store.ctx, loopId)).nodes
      .filter((node) => node.ensemble_id === after.ensemble_id && node.kind === 'agent')
      .map((node) => node.config.prompt_template);
    assert.deepEqual(prompts, ['Review carefully: {{previous_output}}', 'My own review of {{spec_name}}']);
  });

  it('updates wiring by id, clears it with null, and removes the ensemble with everything touching it', async () => {
    const ensemble = await addEnsemble(store.ctx, {
      loop_id: loopId,
      name: 'reviewers',
      prompt_template: 'Review',
      members: [{}, {}],
      from_node: 'test',
      condition: 'pass',
      on_pass_to: 'triage',
    });
    const rewired = await updateEnsemble(store.ctx, { loop_id: loopId, ensemble_id: ensemble.ensemble_id, on_pass_to: null, min_pass: 1 });
    assert.equal(rewired.on_pass_to, undefined);
    assert.equal(rewired.min_pass, 1);
    assert.equal(rewired.quorum_node_id, ensemble.quorum_node_id);

    const removed = await removeEnsemble(store.ctx, { loop_id: loopId, name: 'reviewers' });
    assert.equal(removed.ensemble_id, ensemble.ensemble_id);
    const loop = await getLoop(store.ctx, loopId);
    assert.deepEqual(loop.ensembles, []);
    assert.deepEqual(
      loop.nodes.map((node) => node.name),
      ['implement', 'test', 'triage'],
    );
    assert.deepEqual(loop.edges.map((edge) => `${edge.source}->${edge.target}`).sort(), ['implement->test', 'test->triage']);
  });

  it('sets quorum_grace_minutes, keeps 0, shows it in loop_get, and clears it with null', async () => {
    const added = await addEnsemble(store.ctx, {
      loop_id: loopId,
      name: 'reviewers',
      prompt_template: 'Review',
      members: [{}, {}, {}],
      min_pass: 2,
      quorum_grace_minutes: 0.5,
    });
    assert.equal(added.quorum_grace_minutes, 0.5);
    assert.equal((await getLoop(store.ctx, loopId)).ensembles[0].quorum_grace_minutes, 0.5);
    const cutAtOnce = await updateEnsemble(store.ctx, { loop_id: loopId, name: 'reviewers', quorum_grace_minutes: 0 });
    assert.equal(cutAtOnce.quorum_grace_minutes, 0);
    assert.deepEqual(cutAtOnce.member_node_ids, added.member_node_ids);
    const waitsForAll = await updateEnsemble(store.ctx, { loop_id: loopId, name: 'reviewers', quorum_grace_minutes: null });
    assert.equal('quorum_grace_minutes' in waitsForAll, false);
    assert.equal('quorum_grace_minutes' in (await getLoop(store.ctx, loopId)).ensembles[0], false);
  });

  it('removing an ensemble entry edge removes that wiring', async () => {
    await addEnsemble(store.ctx, {
      loop_id: loopId,
      name: 'reviewers',
      prompt_template: 'Review',
      members: [{}, {}],
      from_node: 'test',
      condition: 'pass',
    });
    const entry = (await getLoop(store.ctx, loopId)).edges.find((edge) => edge.target === 'reviewers')!;
    await removeEdge(store.ctx, { edge_id: entry.id });
    assert.equal((await getLoop(store.ctx, loopId)).ensembles[0].entry_from, undefined);
  });
});
