// How services show a stored graph: every node with its id (member and quorum nodes included),
// edges with ids and endpoint names, and each ensemble as one unit with its wiring.
import type { DesignEnsemble } from '../domain/design';
import type { Edge } from '../domain/edge';
import { designFromStored, type StoredGraph, type StoredNode } from '../graph/stored-graph';

/** An edge with the names authors use for its ends: a node's name, or an ensemble's for its quorum. */
export type EdgeView = Edge & { source: string; target: string };

export type EnsembleView = { ensemble_id: string; loop_id: string } & DesignEnsemble & {
    member_node_ids: string[];
    quorum_node_id: string;
  };

export interface GraphView {
  nodes: StoredNode[];
  edges: EdgeView[];
  ensembles: EnsembleView[];
}

export function viewGraph(graph: StoredGraph): GraphView {
  const vertexName = new Map(graph.nodes.map((node) => [node.id, node.name]));
  for (const ensemble of graph.ensembles) vertexName.set(ensemble.quorum_node_id, ensemble.name);
  const design = designFromStored(graph);
  return {
    nodes: graph.nodes,
    edges: graph.edges.map((edge) => ({ ...edge, source: vertexName.get(edge.source_id)!, target: vertexName.get(edge.target_id)! })),
    ensembles: graph.ensembles.map((stored) => {
      const unit = design.ensembles.find((ensemble) => ensemble.name === stored.name)!;
      const members = graph.nodes
        .filter((node) => node.ensemble_id === stored.id && node.member_index !== null)
        .sort((a, b) => a.member_index! - b.member_index!);
      return {
        ensemble_id: stored.id,
        loop_id: stored.loop_id,
        ...unit,
        member_node_ids: members.map((node) => node.id),
        quorum_node_id: stored.quorum_node_id,
      };
    }),
  };
}
