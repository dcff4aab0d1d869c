// A loop's graph as stored: nodes, edges and ensembles (kept expanded into member and quorum
// nodes), edited one part at a time or replaced whole by writing the difference.
import type { Edge, Ensemble, EnsembleIsolation, EnsembleKind, EnsembleMember, Node } from '../domain';
import type { ENSEMBLE_WIRING_KEYS } from '../domain/ensemble';
import { fromJson, mapPresent, presentFields, toJson } from './columns';
import {
  inTransaction,
  type DatabaseOrTransaction,
  type EdgeRowUpdate,
  type EnsembleRow,
  type EnsembleRowUpdate,
  type NewEnsembleRow,
  type NewNodeRow,
  type NodeRow,
  type NodeRowUpdate,
} from './database';

/** A node with its place among its ensemble's members (null outside an ensemble and for the quorum). */
export type StoredNode = Node & { member_index: number | null };

/** An ensemble as stored: its entry and exit wiring are edges, its quorum is one of its nodes. */
export type StoredEnsemble = Omit<Ensemble, (typeof ENSEMBLE_WIRING_KEYS)[number]> & {
  quorum_node_id: string;
};

/** A whole graph. Ids are chosen by the caller (see ids.ts) so edges can name nodes before they are written. */
export interface GraphRecords {
  nodes: StoredNode[];
  edges: Edge[];
  ensembles: StoredEnsemble[];
}

export type NodeChanges = Partial<Pick<StoredNode, 'name' | 'kind' | 'position' | 'config' | 'ensemble_id' | 'member_index'>>;
export type EdgeChanges = Partial<Pick<Edge, 'source_id' | 'target_id' | 'condition' | 'type'>>;
/** null clears an optional ensemble setting (min_pass null: every member must pass). */
export type EnsembleChanges = Partial<Pick<StoredEnsemble, 'name' | 'prompt_template' | 'members' | 'quorum_node_id'>> & {
  [K in 'min_pass' | 'straggler_timeout_minutes' | 'quorum_grace_minutes' | 'timeout_minutes' | 'idle_timeout_minutes' | 'position']?:
    number | null;
} & { isolation?: EnsembleIsolation | null; kind?: EnsembleKind | null };

export async function getGraph(db: DatabaseOrTransaction, loopId: string): Promise<GraphRecords> {
  const [nodes, edges, ensembles] = await Promise.all([listNodes(db, loopId), listEdges(db, loopId), listEnsembles(db, loopId)]);
  return { nodes, edges, ensembles };
}

/**
 * Makes the loop's graph equal `graph` atomically; every part is written into `loopId`. Only the
 * difference is written: rows whose id is kept are updated in place, because deleting and
 * re-inserting a node would detach its node runs (node_runs.node_id is set null on delete).
 */
export async function replaceGraph(db: DatabaseOrTransaction, loopId: string, graph: GraphRecords): Promise<void> {
  await inTransaction(db, async (tx) => {
    const current = await getGraph(tx, loopId);
    const ensembles = diffRows(
      current.ensembles.map(ensembleToRow),
      graph.ensembles.map((e) => ensembleToRow({ ...e, loop_id: loopId })),
    );
    const nodes = diffRows(
      current.nodes.map(nodeToRow),
      graph.nodes.map((n) => nodeToRow({ ...n, loop_id: loopId })),
    );
    const edges = diffRows(
      current.edges.map(pickEdgeFields),
      graph.edges.map((e) => pickEdgeFields({ ...e, loop_id: loopId })),
    );

    // Removals go from what references to what is referenced, additions the other way round.
    if (edges.removed.length) await tx.deleteFrom('edges').where('id', 'in', edges.removed).execute();
    if (nodes.removed.length) await tx.deleteFrom('nodes').where('id', 'in', nodes.removed).execute();
    if (ensembles.removed.length) await tx.deleteFrom('ensembles').where('id', 'in', ensembles.removed).execute();

    for (const row of ensembles.changed) await tx.updateTable('ensembles').set(row).where('id', '=', row.id).execute();
    if (ensembles.added.length) await tx.insertInto('ensembles').values(ensembles.added).execute();
    for (const row of nodes.changed) await tx.updateTable('nodes').set(row).where('id', '=', row.id).execute();
    if (nodes.added.length) await tx.insertInto('nodes').values(nodes.added).execute();
    for (const row of edges.changed) await tx.updateTable('edges').set(row).where('id', '=', row.id).execute();
    if (edges.added.length) await tx.insertInto('edges').values(edges.added).execute();
  });
}

export async function listNodes(db: DatabaseOrTransaction, loopId: string): Promise<StoredNode[]> {
  const rows = await db.selectFrom('nodes').selectAll().where('loop_id', '=', loopId).orderBy('position').orderBy('name').execute();
  return rows.map(nodeFromRow);
}

export async function getNode(db: DatabaseOrTransaction, id: string): Promise<StoredNode | undefined> {
  const row = await db.selectFrom('nodes').selectAll().where('id', '=', id).executeTakeFirst();
  return row && nodeFromRow(row);
}

/** A node of the loop by its name; member and quorum nodes go by `<ensemble>/member-N` and `<ensemble>/quorum`. */
export async function getNodeByName(db: DatabaseOrTransaction, loopId: string, name: string): Promise<StoredNode | undefined> {
  const row = await db.selectFrom('nodes').selectAll().where('loop_id', '=', loopId).where('name', '=', name).executeTakeFirst();
  return row && nodeFromRow(row);
}

export async function insertNode(db: DatabaseOrTransaction, node: StoredNode): Promise<StoredNode> {
  return nodeFromRow(await db.insertInto('nodes').values(nodeToRow(node)).returningAll().executeTakeFirstOrThrow());
}

export async function updateNode(db: DatabaseOrTransaction, id: string, changes: NodeChanges): Promise<StoredNode | undefined> {
  const row = await db.updateTable('nodes').set(nodeChangesToRow(changes)).where('id', '=', id).returningAll().executeTakeFirst();
  return row && nodeFromRow(row);
}

/** Deletes the node and every edge touching it. */
export async function deleteNode(db: DatabaseOrTransaction, id: string): Promise<boolean> {
  const result = await db.deleteFrom('nodes').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function listEdges(db: DatabaseOrTransaction, loopId: string): Promise<Edge[]> {
  const rows = await db.selectFrom('edges').selectAll().where('loop_id', '=', loopId).orderBy('id').execute();
  return rows.map(pickEdgeFields);
}

export async function getEdge(db: DatabaseOrTransaction, id: string): Promise<Edge | undefined> {
  const row = await db.selectFrom('edges').selectAll().where('id', '=', id).executeTakeFirst();
  return row && pickEdgeFields(row);
}

export async function insertEdge(db: DatabaseOrTransaction, edge: Edge): Promise<Edge> {
  return pickEdgeFields(await db.insertInto('edges').values(pickEdgeFields(edge)).returningAll().executeTakeFirstOrThrow());
}

export async function updateEdge(db: DatabaseOrTransaction, id: string, changes: EdgeChanges): Promise<Edge | undefined> {
  const row = await db.updateTable('edges').set(edgeChangesToRow(changes)).where('id', '=', id).returningAll().executeTakeFirst();
  return row && pickEdgeFields(row);
}

export async function deleteEdge(db: DatabaseOrTransaction, id: string): Promise<boolean> {
  const result = await db.deleteFrom('edges').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function listEnsembles(db: DatabaseOrTransaction, loopId: string): Promise<StoredEnsemble[]> {
  const rows = await db.selectFrom('ensembles').selectAll().where('loop_id', '=', loopId).orderBy('name').execute();
  return rows.map(ensembleFromRow);
}

export async function getEnsemble(db: DatabaseOrTransaction, id: string): Promise<StoredEnsemble | undefined> {
  const row = await db.selectFrom('ensembles').selectAll().where('id', '=', id).executeTakeFirst();
  return row && ensembleFromRow(row);
}

/** Insert the ensemble before its member and quorum nodes, which reference it. */
export async function insertEnsemble(db: DatabaseOrTransaction, ensemble: StoredEnsemble): Promise<StoredEnsemble> {
  const row = await db.insertInto('ensembles').values(ensembleToRow(ensemble)).returningAll().executeTakeFirstOrThrow();
  return ensembleFromRow(row);
}

export async function updateEnsemble(db: DatabaseOrTransaction, id: string, changes: EnsembleChanges): Promise<StoredEnsemble | undefined> {
  const row = await db.updateTable('ensembles').set(ensembleChangesToRow(changes)).where('id', '=', id).returningAll().executeTakeFirst();
  return row && ensembleFromRow(row);
}

/** Deletes the ensemble with its member and quorum nodes and their edges. */
export async function deleteEnsemble(db: DatabaseOrTransaction, id: string): Promise<boolean> {
  const result = await db.deleteFrom('ensembles').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

interface RowDiff<R> {
  removed: string[];
  changed: R[];
  added: R[];
}

/** Which rows of `next` are new or differ from `current` (compared column by column), and which ids of `current` are gone. */
function diffRows<R extends { id: string }>(current: R[], next: R[]): RowDiff<R> {
  const currentById = new Map(current.map((row) => [row.id, row]));
  const nextIds = new Set(next.map((row) => row.id));
  const sameRow = (a: R, b: R) => Object.keys(b).every((column) => a[column as keyof R] === b[column as keyof R]);
  return {
    removed: current.filter((row) => !nextIds.has(row.id)).map((row) => row.id),
    changed: next.filter((row) => currentById.has(row.id) && !sameRow(currentById.get(row.id)!, row)),
    added: next.filter((row) => !currentById.has(row.id)),
  };
}

function nodeFromRow(row: NodeRow): StoredNode {
  return {
    id: row.id,
    loop_id: row.loop_id,
    name: row.name,
    kind: row.kind,
    position: row.position,
    config: fromJson(row.config),
    ensemble_id: row.ensemble_id,
    member_index: row.member_index,
  };
}

function nodeToRow(node: StoredNode): NewNodeRow {
  return {
    id: node.id,
    loop_id: node.loop_id,
    name: node.name,
    kind: node.kind,
    position: node.position,
    config: toJson(node.config),
    ensemble_id: node.ensemble_id,
    member_index: node.member_index,
  };
}

function nodeChangesToRow(changes: NodeChanges): NodeRowUpdate {
  return {
    name: changes.name,
    kind: changes.kind,
    position: changes.position,
    config: mapPresent(changes.config, toJson),
    ensemble_id: changes.ensemble_id,
    member_index: changes.member_index,
  };
}

/** Edge rows and domain edges have the same fields; picking them keeps stray properties out of queries. */
function pickEdgeFields(edge: Edge): Edge {
  return {
    id: edge.id,
    loop_id: edge.loop_id,
    source_id: edge.source_id,
    target_id: edge.target_id,
    condition: edge.condition,
    type: edge.type,
  };
}

function edgeChangesToRow(changes: EdgeChanges): EdgeRowUpdate {
  return { source_id: changes.source_id, target_id: changes.target_id, condition: changes.condition, type: changes.type };
}

function ensembleFromRow(row: EnsembleRow): StoredEnsemble {
  return {
    id: row.id,
    loop_id: row.loop_id,
    name: row.name,
    prompt_template: row.prompt_template,
    members: fromJson<EnsembleMember[]>(row.members),
    quorum_node_id: row.quorum_node_id,
    ...presentFields({
      min_pass: row.min_pass,
      straggler_timeout_minutes: row.straggler_timeout_minutes,
      quorum_grace_minutes: row.quorum_grace_minutes,
      timeout_minutes: row.timeout_minutes,
      idle_timeout_minutes: row.idle_timeout_minutes,
      isolation: row.isolation as EnsembleIsolation | null,
      kind: row.kind as EnsembleKind | null,
      position: row.position,
    }),
  };
}

function ensembleToRow(ensemble: StoredEnsemble): NewEnsembleRow {
  return {
    id: ensemble.id,
    loop_id: ensemble.loop_id,
    name: ensemble.name,
    prompt_template: ensemble.prompt_template,
    members: toJson(ensemble.members),
    quorum_node_id: ensemble.quorum_node_id,
    min_pass: ensemble.min_pass ?? null,
    straggler_timeout_minutes: ensemble.straggler_timeout_minutes ?? null,
    quorum_grace_minutes: ensemble.quorum_grace_minutes ?? null,
    timeout_minutes: ensemble.timeout_minutes ?? null,
    idle_timeout_minutes: ensemble.idle_timeout_minutes ?? null,
    isolation: ensemble.isolation ?? null,
    kind: ensemble.kind ?? null,
    position: ensemble.position ?? null,
  };
}

function ensembleChangesToRow(changes: EnsembleChanges): EnsembleRowUpdate {
  return {
    name: changes.name,
    prompt_template: changes.prompt_template,
    members: mapPresent(changes.members, toJson),
    quorum_node_id: changes.quorum_node_id,
    min_pass: changes.min_pass,
    straggler_timeout_minutes: changes.straggler_timeout_minutes,
    quorum_grace_minutes: changes.quorum_grace_minutes,
    timeout_minutes: changes.timeout_minutes,
    idle_timeout_minutes: changes.idle_timeout_minutes,
    isolation: changes.isolation,
    kind: changes.kind,
    position: changes.position,
  };
}
