// The graph repository round-trips nodes, edges and ensembles and replaces whole graphs atomically.
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import type { Edge } from '../../src/domain';
import {
  deleteEdge,
  deleteEnsemble,
  deleteNode,
  getEdge,
  getEnsemble,
  getGraph,
  getNode,
  getNodeByName,
  getNodeRun,
  insertEdge,
  insertEnsemble,
  insertNode,
  insertNodeRun,
  isUniqueViolation,
  listEdges,
  listEnsembles,
  listNodes,
  newId,
  replaceGraph,
  updateEdge,
  updateEnsemble,
  updateNode,
  type GraphRecords,
  type StoredEnsemble,
  type StoredNode,
} from '../../src/store';
import { describeOnEachDialect, insertTestLoop } from '../helpers/store-dialects';

function checkNode(loopId: string, name: string, position: number): StoredNode {
  return {
    id: newId('node'),
    loop_id: loopId,
    name,
    kind: 'check',
    position,
    config: { command: `echo ${name}` },
    ensemble_id: null,
    member_index: null,
  };
}

function edge(loopId: string, source: StoredNode, target: StoredNode, condition = 'pass'): Edge {
  return { id: newId('edge'), loop_id: loopId, source_id: source.id, target_id: target.id, condition, type: 'flow' };
}

/** An ensemble of two reviewers and its quorum, as the graph module expands it. */
function reviewersEnsemble(loopId: string): GraphRecords {
  const ensemble: StoredEnsemble = {
    id: newId('ens'),
    loop_id: loopId,
    name: 'reviewers',
    prompt_template: 'Review {{spec_name}}',
    members: [
      { platform: 'opencode', model: 'mimo' },
      { platform: 'claude', prompt_override: 'Be strict' },
    ],
    min_pass: 1,
    position: 5,
    quorum_node_id: newId('node'),
  };
  const members = ensemble.members.map((member, index): StoredNode => ({
    id: newId('node'),
    loop_id: loopId,
    name: `reviewers/${index}`,
    kind: 'agent',
    position: 5 + index / 10,
    config: { ...member, prompt_template: ensemble.prompt_template },
    ensemble_id: ensemble.id,
    member_index: index,
  }));
  const quorum: StoredNode = {
    id: ensemble.quorum_node_id,
    loop_id: loopId,
    name: 'reviewers',
    kind: 'quorum',
    position: 5.5,
    config: { min_pass: 1 },
    ensemble_id: ensemble.id,
    member_index: null,
  };
  return { nodes: [...members, quorum], edges: members.map((m) => edge(loopId, m, quorum, 'always')), ensembles: [ensemble] };
}

describeOnEachDialect('graph repository', (store) => {
  let loopId: string;
  beforeEach(async () => {
    loopId = (await insertTestLoop(store.db)).id;
  });

  it('round-trips nodes in position order', async () => {
    const second = await insertNode(store.db, checkNode(loopId, 'second', 2.5));
    const first = await insertNode(store.db, { ...checkNode(loopId, 'first', 1), kind: 'gate', config: { output_contains: 'OK' } });
    assert.deepEqual(await getNode(store.db, second.id), second);
    assert.deepEqual(await listNodes(store.db, loopId), [first, second]);
  });

  it('refuses two nodes with one name in a loop', async () => {
    await insertNode(store.db, checkNode(loopId, 'twin', 1));
    await assert.rejects(insertNode(store.db, checkNode(loopId, 'twin', 2)), isUniqueViolation);
  });

  it('updates a node, and deleting it deletes the edges that touch it', async () => {
    const a = await insertNode(store.db, checkNode(loopId, 'a', 1));
    const b = await insertNode(store.db, checkNode(loopId, 'b', 2));
    const c = await insertNode(store.db, checkNode(loopId, 'c', 3));
    await insertEdge(store.db, edge(loopId, a, b));
    const kept = await insertEdge(store.db, edge(loopId, a, c));

    const updated = await updateNode(store.db, b.id, { config: { command: 'make test', timeout_minutes: 2 }, position: 9 });
    assert.deepEqual(updated, { ...b, config: { command: 'make test', timeout_minutes: 2 }, position: 9 });

    assert.equal(await deleteNode(store.db, b.id), true);
    assert.equal(await deleteNode(store.db, b.id), false);
    assert.deepEqual(await listEdges(store.db, loopId), [kept]);
  });

  it('round-trips, updates and deletes edges', async () => {
    const a = await insertNode(store.db, checkNode(loopId, 'a', 1));
    const b = await insertNode(store.db, checkNode(loopId, 'b', 2));
    const inserted = await insertEdge(store.db, { ...edge(loopId, b, a, 'fail'), type: 'loopback' });
    assert.deepEqual(await getEdge(store.db, inserted.id), inserted);
    assert.deepEqual(await updateEdge(store.db, inserted.id, { condition: 'always' }), { ...inserted, condition: 'always' });
    assert.equal(await deleteEdge(store.db, inserted.id), true);
    assert.equal(await getEdge(store.db, inserted.id), undefined);
  });

  it('round-trips an ensemble, leaving unset options absent and clearing them with null', async () => {
    const { ensembles, nodes } = reviewersEnsemble(loopId);
    const ensemble = await insertEnsemble(store.db, ensembles[0]);
    for (const node of nodes) await insertNode(store.db, node);
    assert.deepEqual(ensemble, ensembles[0]);
    assert.equal('timeout_minutes' in ensemble, false);
    assert.deepEqual(await listEnsembles(store.db, loopId), [ensemble]);

    const updated = await updateEnsemble(store.db, ensemble.id, {
      min_pass: null,
      straggler_timeout_minutes: 7.5,
      quorum_grace_minutes: 0,
      prompt_template: 'Review again',
    });
    const { min_pass: _cleared, ...unchanged } = ensemble;
    assert.deepEqual(updated, { ...unchanged, straggler_timeout_minutes: 7.5, quorum_grace_minutes: 0, prompt_template: 'Review again' });
    assert.deepEqual(await getEnsemble(store.db, ensemble.id), updated);
    assert.deepEqual(
      (await listNodes(store.db, loopId)).map((n) => [n.name, n.member_index]),
      [
        ['reviewers/0', 0],
        ['reviewers/1', 1],
        ['reviewers', null],
      ],
    );
  });

  it('deletes an ensemble with its member and quorum nodes and their edges', async () => {
    const lone = checkNode(loopId, 'lone', 1);
    const ensemble = reviewersEnsemble(loopId);
    await replaceGraph(store.db, loopId, { ...ensemble, nodes: [lone, ...ensemble.nodes] });
    assert.equal(await deleteEnsemble(store.db, ensemble.ensembles[0].id), true);
    assert.deepEqual(await getGraph(store.db, loopId), { nodes: [lone], edges: [], ensembles: [] });
  });

  it('replaces a whole graph, writing every part into the given loop', async () => {
    const old = checkNode(loopId, 'old', 1);
    await replaceGraph(store.db, loopId, { nodes: [old], edges: [], ensembles: [] });

    const implement = checkNode(loopId, 'implement', 1);
    const ensemble = reviewersEnsemble(loopId);
    const graph: GraphRecords = {
      nodes: [implement, ...ensemble.nodes],
      edges: [edge(loopId, implement, ensemble.nodes[0], 'always'), ...ensemble.edges],
      ensembles: ensemble.ensembles,
    };
    await replaceGraph(store.db, loopId, graph);

    const stored = await getGraph(store.db, loopId);
    assert.deepEqual(stored.ensembles, graph.ensembles);
    assert.deepEqual(
      stored.nodes,
      [...graph.nodes].sort((x, y) => x.position - y.position),
    );
    assert.deepEqual(
      stored.edges,
      [...graph.edges].sort((x, y) => (x.id < y.id ? -1 : 1)),
    );
  });

  it('keeps nodes whose id survives a replacement, so their node runs stay attached', async () => {
    const kept = checkNode(loopId, 'kept', 1);
    const dropped = checkNode(loopId, 'dropped', 2);
    await replaceGraph(store.db, loopId, { nodes: [kept, dropped], edges: [edge(loopId, kept, dropped)], ensembles: [] });
    const run = await insertNodeRun(store.db, { loop_id: loopId, node_id: kept.id, node_name: 'kept', kind: 'check', round: 1 });

    const renamed = { ...kept, name: 'renamed', config: { command: 'make' } };
    await replaceGraph(store.db, loopId, { nodes: [renamed], edges: [], ensembles: [] });

    assert.deepEqual(await getGraph(store.db, loopId), { nodes: [renamed], edges: [], ensembles: [] });
    assert.equal((await getNodeRun(store.db, run.id))?.node_id, kept.id);
  });

  it('finds a node of the loop by name', async () => {
    const node = await insertNode(store.db, checkNode(loopId, 'build', 1));
    assert.deepEqual(await getNodeByName(store.db, loopId, 'build'), node);
    assert.equal(await getNodeByName(store.db, loopId, 'missing'), undefined);
  });

  it('leaves the old graph in place when a replacement fails midway', async () => {
    const a = checkNode(loopId, 'a', 1);
    const b = checkNode(loopId, 'b', 2);
    const before: GraphRecords = { nodes: [a, b], edges: [edge(loopId, a, b)], ensembles: [] };
    await replaceGraph(store.db, loopId, before);

    const c = checkNode(loopId, 'c', 1);
    const dangling: Edge = {
      id: newId('edge'),
      loop_id: loopId,
      source_id: c.id,
      target_id: 'node_missing',
      condition: 'pass',
      type: 'flow',
    };
    await assert.rejects(replaceGraph(store.db, loopId, { nodes: [c], edges: [dangling], ensembles: [] }));

    assert.deepEqual(await getGraph(store.db, loopId), before);
  });

  it('joins the caller’s transaction, so a later failure there undoes the replacement', async () => {
    const kept = checkNode(loopId, 'kept', 1);
    await replaceGraph(store.db, loopId, { nodes: [kept], edges: [], ensembles: [] });
    await assert.rejects(
      store.db.transaction().execute(async (tx) => {
        await replaceGraph(tx, loopId, { nodes: [checkNode(loopId, 'new', 1)], edges: [], ensembles: [] });
        throw new Error('caller failed after the replacement');
      }),
      /caller failed/,
    );
    assert.deepEqual(await listNodes(store.db, loopId), [kept]);
  });
});
