// A loop's graph as services handle it: finding the loop, loading its graph as a design, and
// storing an edited design only once the whole of it validates.
import type { Design } from '../domain/design';
import { invalidInput, notFound, type Issue } from '../domain/errors';
import type { Loop } from '../domain/loop';
import { designFromStored, expandDesign, type StoredGraph } from '../graph/stored-graph';
import { validateDesign } from '../graph/validate-design';
import type { DatabaseOrTransaction } from '../store/database';
import { getGraph, replaceGraph } from '../store/graph-repository';
import { newId } from '../store/ids';
import { getLoop } from '../store/loops-repository';

export interface LoadedDesign {
  loop: Loop;
  stored: StoredGraph;
  design: Design;
}

export const EMPTY_GRAPH: StoredGraph = { nodes: [], edges: [], ensembles: [] };

export async function requireLoop(db: DatabaseOrTransaction, loopId: string): Promise<Loop> {
  const loop = await getLoop(db, loopId);
  if (!loop) throw notFound('loop', loopId, 'List loops with `canopy loop list --all` (MCP: loop_list).');
  return loop;
}

export async function loadDesign(db: DatabaseOrTransaction, loopId: string): Promise<LoadedDesign> {
  const loop = await requireLoop(db, loopId);
  const stored = await getGraph(db, loopId);
  return { loop, stored, design: designFromStored(stored) };
}

/** Throws every problem of the design at once; `relabel` may rename issue fields for the caller's input. */
export function requireValidDesign(design: Design, what: string, relabel: (issue: Issue) => Issue = (issue) => issue): void {
  const issues = validateDesign(design);
  if (issues.length) throw invalidInput(what, issues.map(relabel));
}

/**
 * Names issues about the part a caller wrote by the caller's own fields: with subject `nodes[3]`,
 * `nodes[3].config.command` becomes `config.command` and `nodes[3]` itself becomes `label`.
 */
export function issuesUnder(subject: string, label: string): (issue: Issue) => Issue {
  return (issue) => {
    if (issue.field === subject) return { ...issue, field: label };
    if (issue.field.startsWith(`${subject}.`)) return { ...issue, field: issue.field.slice(subject.length + 1) };
    return issue;
  };
}

/**
 * Writes a validated design as the loop's graph. Parts `previous` holds under the same name keep
 * their ids (see expandDesign); returns the graph as stored.
 */
export async function storeDesign(db: DatabaseOrTransaction, loopId: string, design: Design, previous: StoredGraph): Promise<StoredGraph> {
  const graph = expandDesign(loopId, design, previous, newId);
  await replaceGraph(db, loopId, graph);
  return graph;
}
