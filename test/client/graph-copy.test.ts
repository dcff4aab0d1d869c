// Copying a node or an ensemble under a new name, within its loop or into another: kind, config, members and
// settings come along, edges and wiring do not, and a bad copy is refused by field with nothing changed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addEnsemble, addNode, copyEnsemble, copyNode } from '../../src/client/graph-service';
import { createLoop, getLoop } from '../../src/client/loops-service';
import { assertRefusedUnchanged, useTestStore } from '../helpers/store';

const store = useTestStore();

/** implement -> reviewers (an ensemble entered from it, passing to test) -> test. */
async function reviewedLoop(name: string): Promise<string> {
  const loop = await createLoop(store.ctx, { name, workdir: store.workdir() });
  await addNode(store.ctx, { loop_id: loop.id, name: 'implement', kind: 'agent', config: { prompt_template: 'Do {{spec_content}}' } });
  await addNode(store.ctx, { loop_id: loop.id, name: 'test', kind: 'check', config: { command: 'npm test', timeout_minutes: 5 } });
  await addEnsemble(store.ctx, {
    loop_id: loop.id,
    name: 'reviewers',
    prompt_template: 'Review {{previous_output}}',
    members: [{ model: 'a' }, { model: 'b', timeout_minutes: 7 }],
    min_pass: 1,
    entry_from_node: 'implement',
    on_pass_to: 'test',
  });
  return loop.id;
}

describe('copying nodes and ensembles', () => {
  it('copies a node within its loop and into another, with its config and no edges', async () => {
    const loopId = await reviewedLoop('source');
    const source = await getLoop(store.ctx, loopId);
    const test = source.nodes.find((node) => node.name === 'test')!;
    const copy = await copyNode(store.ctx, { node_id: test.id, new_name: 'test-again' });
    assert.deepEqual([copy.loop_id, copy.kind, copy.config], [loopId, 'check', { command: 'npm test', timeout_minutes: 5 }]);
    assert.notEqual(copy.id, test.id);
    const after = await getLoop(store.ctx, loopId);
    assert.equal(after.edges.filter((edge) => edge.source === 'test-again' || edge.target === 'test-again').length, 0, 'no edge is copied');
    assert.ok(copy.position > Math.max(...source.nodes.filter((n) => n.ensemble_id === null).map((n) => n.position)));

    const other = await createLoop(store.ctx, { name: 'target', workdir: store.workdir() });
    const moved = await copyNode(store.ctx, { node_id: test.id, new_name: 'test', to_loop_id: other.id });
    assert.equal(moved.loop_id, other.id);
    assert.deepEqual(
      (await getLoop(store.ctx, other.id)).nodes.map((node) => node.name),
      ['test'],
    );
  });

  it('copies an ensemble with its members and settings and without its wiring', async () => {
    const loopId = await reviewedLoop('ensembles');
    const copy = await copyEnsemble(store.ctx, { loop_id: loopId, name: 'reviewers', new_name: 'second-opinion' });
    assert.equal(copy.name, 'second-opinion');
    assert.deepEqual(copy.members, [{ model: 'a' }, { model: 'b', timeout_minutes: 7 }]);
    assert.deepEqual([copy.prompt_template, copy.min_pass], ['Review {{previous_output}}', 1]);
    assert.deepEqual([copy.entry_from, copy.on_pass_to, copy.on_fail_to], [undefined, undefined, undefined]);
    assert.equal(copy.member_node_ids.length, 2);
    const original = (await getLoop(store.ctx, loopId)).ensembles.find((ensemble) => ensemble.name === 'reviewers')!;
    assert.deepEqual(original.entry_from, [{ node: 'implement', condition: 'always' }], 'the original keeps its wiring');

    const other = await createLoop(store.ctx, { name: 'elsewhere', workdir: store.workdir() });
    const moved = await copyEnsemble(store.ctx, { loop_id: loopId, name: 'reviewers', new_name: 'reviewers', to_loop_id: other.id });
    assert.equal(moved.loop_id, other.id);
  });

  it('refuses a taken name, a member node, an unknown ensemble and a missing target loop, changing nothing', async () => {
    const loopId = await reviewedLoop('refusals');
    const loop = await getLoop(store.ctx, loopId);
    const implement = loop.nodes.find((node) => node.name === 'implement')!;
    const member = loop.nodes.find((node) => node.ensemble_id !== null && node.id !== loop.ensembles[0].quorum_node_id)!;
    await assertRefusedUnchanged(store.ctx, () => copyNode(store.ctx, { node_id: implement.id, new_name: 'test' }), {
      code: 'invalid_input',
      message: /test/,
    });
    await assertRefusedUnchanged(store.ctx, () => copyNode(store.ctx, { node_id: implement.id, new_name: '' }), {
      code: 'invalid_input',
      field: 'new_name',
    });
    await assertRefusedUnchanged(store.ctx, () => copyNode(store.ctx, { node_id: member.id, new_name: 'lonely' }), {
      code: 'refused',
      message: /is part of ensemble 'reviewers': copy the whole ensemble with loop_copy_ensemble/,
    });
    await assertRefusedUnchanged(store.ctx, () => copyEnsemble(store.ctx, { loop_id: loopId, name: 'nobody', new_name: 'x' }), {
      code: 'not_found',
      message: /No ensemble is named 'nobody'/,
    });
    await assertRefusedUnchanged(
      store.ctx,
      () => copyNode(store.ctx, { node_id: implement.id, new_name: 'again', to_loop_id: 'loop_missing' }),
      { code: 'not_found' },
    );
  });
});
