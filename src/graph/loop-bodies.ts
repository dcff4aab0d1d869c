// Loop bodies (seed loop-body.txt): for each loopback head, the nodes a new round of its loop re-runs.
import type { EdgeType } from '../domain/edge';
import { adjacency, breadthFirst, type Adjacency } from './search';

export interface TypedEdge {
  source: string;
  target: string;
  type?: EdgeType;
}

/**
 * Body of the loop headed by H = ({H} ∪ descendants(H)) ∩ ({S} ∪ ancestors(S)) over flow edges only,
 * unioned over every loopback tail S into H. One search forward from H and one backward from all its
 * tails together keep this linear per head.
 */
export function loopBodies(edges: TypedEdge[]): Record<string, string[]> {
  const flow = edges.filter((edge) => (edge.type ?? 'flow') === 'flow');
  const successors = adjacency(flow.map((edge) => [edge.source, edge.target]));
  const predecessors = adjacency(flow.map((edge) => [edge.target, edge.source]));
  const tailsByHead = adjacency(edges.filter((edge) => edge.type === 'loopback').map((edge) => [edge.target, edge.source]));

  // Object.fromEntries defines own properties, so a node named "__proto__" stays an ordinary key.
  return Object.fromEntries([...tailsByHead].map(([head, tails]) => [head, bodyOf(head, tails, successors, predecessors)]));
}

function bodyOf(head: string, tails: string[], successors: Adjacency, predecessors: Adjacency): string[] {
  const upstreamOfTails = breadthFirst(tails, predecessors);
  const body = [...breadthFirst([head], successors).keys()].filter((vertex) => upstreamOfTails.has(vertex));
  // A tail the head cannot reach closes no cycle, yet its loop still exists with the head alone.
  if (!body.includes(head)) body.push(head);
  return body.sort();
}
