// An ensemble wired like a node: entries from several nodes or ensembles, each on its own condition,
// changed one at a time, and quorums routing straight to another ensemble. Every refusal names its
// field and leaves the store as it was.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { addEnsemble, addNode, removeEnsemble, updateEnsemble, updateNode } from '../../src/client/graph-service';
import { createLoop, getLoop } from '../../src/client/loops-service';
import { assertRefusedUnchanged, useTestStore, type ExpectedRefusal } from '../helpers/store';

const store = useTestStore();

/** Nodes tests (a check), fix and ship (agents), and the ensemble panel entered from tests on pass. */
async function panelLoop(): Promise<string> {
  const loop = await createLoop(store.ctx, { name: 'entries', workdir: store.workdir() });
  await addNode(store.ctx, { loop_id: loop.id, name: 'tests', kind: 'check', config: { command: 'npm test' } });
  await addNode(store.ctx, { loop_id: loop.id, name: 'fix', kind: 'agent', config: { prompt_template: 'Fix it' } });
  await addNode(store.ctx, { loop_id: loop.id, name: 'ship', kind: 'agent', config: { prompt_template: 'Ship it' } });
  await addEnsemble(store.ctx, {
    loop_id: loop.id,
    name: 'panel',
    prompt_template: 'Review',
    members: [{}, {}],
    entry_from: [{ node: 'tests', condition: 'pass' }],
  });
  return loop.id;
}

async function panel(loopId: string) {
  return (await getLoop(store.ctx, loopId)).ensembles.find((ensemble) => ensemble.name === 'panel')!;
}

async function refusedUnchanged(work: () => Promise<unknown>, expected: ExpectedRefusal): Promise<void> {
  await assertRefusedUnchanged(store.ctx, work, expected);
}

describe('ensemble entries', () => {
  let loopId: string;
  beforeEach(async () => {
    loopId = await panelLoop();
  });

  it('adds and removes entries one at a time, each kept as an edge into the quorum', async () => {
    const before = await panel(loopId);
    const added = await updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', add_entry_from: [{ node: 'fix', condition: 'pass' }] });
    assert.deepEqual(added.entry_from, [
      { node: 'fix', condition: 'pass' },
      { node: 'tests', condition: 'pass' },
    ]);
    assert.equal(added.quorum_node_id, before.quorum_node_id);
    const into = (await getLoop(store.ctx, loopId)).edges.filter((edge) => edge.target_id === added.quorum_node_id);
    assert.deepEqual(into.map((edge) => `${edge.source} -${edge.condition}-> ${edge.target}`).sort(), [
      'fix -pass-> panel',
      'tests -pass-> panel',
    ]);
    const removed = await updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', remove_entry_from: [{ node: 'tests' }] });
    assert.deepEqual(removed.entry_from, [{ node: 'fix', condition: 'pass' }]);
    const none = await updateEnsemble(store.ctx, {
      loop_id: loopId,
      name: 'panel',
      remove_entry_from: [{ node: 'fix', condition: 'pass' }],
    });
    assert.equal(none.entry_from, undefined);
  });

  it('replaces every entry with entry_from, and null removes them all', async () => {
    const replaced = await updateEnsemble(store.ctx, {
      loop_id: loopId,
      name: 'panel',
      entry_from: [{ node: 'fix' }, { node: 'tests', condition: 'fail' }],
    });
    assert.deepEqual(replaced.entry_from, [
      { node: 'fix', condition: 'always' },
      { node: 'tests', condition: 'fail' },
    ]);
    assert.equal((await updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', entry_from: null })).entry_from, undefined);
  });

  it('keeps entry_from_node and entry_condition working on an ensemble of one entry', async () => {
    const moved = await updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', entry_from_node: 'fix' });
    assert.deepEqual(moved.entry_from, [{ node: 'fix', condition: 'pass' }], 'the entry keeps its condition');
    const always = await updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', entry_condition: null });
    assert.deepEqual(always.entry_from, [{ node: 'fix', condition: 'always' }]);
    const added = await addEnsemble(store.ctx, {
      loop_id: loopId,
      name: 'second',
      prompt_template: 'Again',
      members: [{}, {}],
      from_node: 'panel',
    });
    assert.deepEqual(added.entry_from, [{ ensemble: 'panel', condition: 'always' }], 'an older entry naming an ensemble');
    const cleared = await updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', entry_from_node: null });
    assert.equal(cleared.entry_from, undefined);
  });

  it('follows a renamed node and drops the entries of a removed ensemble', async () => {
    await updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', add_entry_from: [{ node: 'fix', condition: 'pass' }] });
    const fix = (await getLoop(store.ctx, loopId)).nodes.find((node) => node.name === 'fix')!;
    await updateNode(store.ctx, { loop_id: loopId, node_id: fix.id, name: 'repair' });
    assert.deepEqual((await panel(loopId)).entry_from, [
      { node: 'repair', condition: 'pass' },
      { node: 'tests', condition: 'pass' },
    ]);
    await addEnsemble(store.ctx, {
      loop_id: loopId,
      name: 'after',
      prompt_template: 'p',
      members: [{}, {}],
      entry_from: [{ ensemble: 'panel' }],
    });
    await removeEnsemble(store.ctx, { loop_id: loopId, name: 'panel' });
    const after = (await getLoop(store.ctx, loopId)).ensembles.find((ensemble) => ensemble.name === 'after')!;
    assert.equal(after.entry_from, undefined);
  });

  describe('refuses, changing nothing,', () => {
    it('an entry from a node or ensemble that does not exist', async () => {
      await refusedUnchanged(() => updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', add_entry_from: [{ node: 'ghost' }] }), {
        code: 'invalid_input',
        field: 'add_entry_from[0].node',
        message: /'ghost' is not a node or ensemble of this design; use one of: tests, fix, ship, panel/,
      });
      await refusedUnchanged(() => updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', add_entry_from: [{ ensemble: 'ghost' }] }), {
        code: 'invalid_input',
        field: 'add_entry_from[0].ensemble',
        message: /'ghost' is not a node or ensemble/,
      });
    });

    it('an entry naming a node as an ensemble', () =>
      refusedUnchanged(() => updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', add_entry_from: [{ ensemble: 'fix' }] }), {
        code: 'invalid_input',
        field: 'add_entry_from[0].ensemble',
        message: /'fix' is a node, not an ensemble; write \{"node": "fix"\}/,
      }));

    it('an entry from the ensemble itself', () =>
      refusedUnchanged(() => updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', add_entry_from: [{ ensemble: 'panel' }] }), {
        code: 'invalid_input',
        field: 'add_entry_from[0]',
        message: /closes the cycle panel -> panel/,
      }));

    it('a duplicate entry, given twice or already there', async () => {
      await refusedUnchanged(
        () => updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', add_entry_from: [{ node: 'tests', condition: 'fail' }] }),
        { code: 'invalid_input', field: 'add_entry_from[0]', message: /already has an entry from 'tests' \(on pass\)/ },
      );
      await refusedUnchanged(
        () =>
          updateEnsemble(store.ctx, {
            loop_id: loopId,
            name: 'panel',
            add_entry_from: [{ node: 'fix' }, { node: 'fix', condition: 'pass' }],
          }),
        { code: 'invalid_input', field: 'add_entry_from[1]', message: /already has an entry from 'fix' \(on always\)/ },
      );
      await refusedUnchanged(
        () =>
          updateEnsemble(store.ctx, {
            loop_id: loopId,
            name: 'panel',
            entry_from: [{ node: 'fix' }, { node: 'fix', condition: 'fail' }],
          }),
        { code: 'invalid_input', field: 'entry_from[1]', message: /already has an entry from 'fix'/ },
      );
    });

    it('removing an entry that is not there, or on another condition', async () => {
      await refusedUnchanged(() => updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', remove_entry_from: [{ node: 'fix' }] }), {
        code: 'invalid_input',
        field: 'remove_entry_from[0]',
        message: /'panel' has no entry from 'fix'; its entries come from 'tests' \(pass\)/,
      });
      await refusedUnchanged(
        () => updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', remove_entry_from: [{ node: 'tests', condition: 'fail' }] }),
        { code: 'invalid_input', field: 'remove_entry_from[0].condition', message: /is on pass, not fail/ },
      );
    });

    it('an entry with neither node nor ensemble, or both', async () => {
      await refusedUnchanged(() => updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', add_entry_from: [{ condition: 'pass' }] }), {
        code: 'invalid_input',
        field: 'add_entry_from.0.node',
        message: /give either node or ensemble/,
      });
      await refusedUnchanged(
        () => updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', add_entry_from: [{ node: 'fix', ensemble: 'panel' }] }),
        { code: 'invalid_input', field: 'add_entry_from.0.node', message: /give either node or ensemble/ },
      );
    });

    it('an entry on a condition its source never produces', () =>
      refusedUnchanged(
        () => updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', add_entry_from: [{ node: 'fix', condition: 'bug' }] }),
        { code: 'invalid_input', field: 'add_entry_from[0].condition', message: /'bug' is not an outcome of 'fix'/ },
      ));

    it('entry_from with add_entry_from, and a single-entry change on an ensemble of several', async () => {
      await refusedUnchanged(
        () =>
          updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', entry_from: [{ node: 'fix' }], add_entry_from: [{ node: 'ship' }] }),
        { code: 'invalid_input', field: 'entry_from', message: /replaces every entry, so give it alone/ },
      );
      await updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', add_entry_from: [{ node: 'fix', condition: 'pass' }] });
      await refusedUnchanged(() => updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', entry_condition: 'fail' }), {
        code: 'invalid_input',
        field: 'entry_condition',
        message: /this one has 2; its entries come from 'fix' \(pass\), 'tests' \(pass\)/,
      });
      await refusedUnchanged(() => updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', entry_from_node: 'ship' }), {
        code: 'invalid_input',
        field: 'entry_from_node',
        message: /use add_entry_from and remove_entry_from/,
      });
    });
  });
});

describe('chained ensembles', () => {
  let loopId: string;
  beforeEach(async () => {
    loopId = await panelLoop();
  });

  it('routes one quorum straight to another, shown as {"ensemble": name}', async () => {
    await addEnsemble(store.ctx, { loop_id: loopId, name: 'second', prompt_template: 'Again', members: [{}, {}], on_pass_to: 'ship' });
    const chained = await updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', on_pass_to: { ensemble: 'second' } });
    assert.deepEqual(chained.on_pass_to, { ensemble: 'second' });
    const loop = await getLoop(store.ctx, loopId);
    const second = loop.ensembles.find((ensemble) => ensemble.name === 'second')!;
    assert.equal(second.entry_from, undefined, 'the chain shows once: as the first ensemble’s on_pass_to');
    const edge = loop.edges.find((candidate) => candidate.source === 'panel')!;
    assert.deepEqual([edge.source_id, edge.target_id, edge.condition], [chained.quorum_node_id, second.quorum_node_id, 'pass']);
    const byName = await updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', on_fail_to: 'fix' });
    assert.deepEqual([byName.on_pass_to, byName.on_fail_to], [{ ensemble: 'second' }, 'fix']);
  });

  it('refuses, changing nothing, a target naming a missing ensemble, a node as an ensemble, or itself', async () => {
    await refusedUnchanged(() => updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', on_pass_to: { ensemble: 'ghost' } }), {
      code: 'invalid_input',
      field: 'on_pass_to.ensemble',
      message: /'ghost' is not a node or ensemble of this design/,
    });
    await refusedUnchanged(() => updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', on_fail_to: { ensemble: 'ship' } }), {
      code: 'invalid_input',
      field: 'on_fail_to.ensemble',
      message: /'ship' is a node, not an ensemble; write \{"node": "ship"\}/,
    });
    await refusedUnchanged(() => updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', on_pass_to: { ensemble: 'panel' } }), {
      code: 'invalid_input',
      field: 'on_pass_to',
      message: /closes the cycle panel -> panel/,
    });
    await refusedUnchanged(() => updateEnsemble(store.ctx, { loop_id: loopId, name: 'panel', on_pass_to: { node: 'ship' } }), {
      code: 'invalid_input',
      field: 'on_pass_to',
      message: /must be a node’s name or \{"ensemble": "<name>"\}/,
    });
  });

  it('refuses a chain that closes a flow cycle, naming the loopback that would send work back instead', async () => {
    await addEnsemble(store.ctx, {
      loop_id: loopId,
      name: 'second',
      prompt_template: 'Again',
      members: [{}, {}],
      entry_from: [{ ensemble: 'panel', condition: 'pass' }],
    });
    await refusedUnchanged(() => updateEnsemble(store.ctx, { loop_id: loopId, name: 'second', on_fail_to: { ensemble: 'panel' } }), {
      code: 'invalid_input',
      field: 'on_fail_to',
      message: /closes the cycle panel -> second -> panel/,
    });
  });
});
