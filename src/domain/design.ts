// A loop's graph as authors see it: plain nodes, ensembles as single units, edges by name.
// An edge endpoint is a node name or an ensemble name; the store keeps ensembles expanded.
import type { EdgeType } from './edge';
import type { EnsembleInput } from './ensemble';
import type { NodeKind } from './node';

export interface DesignNode {
  name: string;
  kind: NodeKind;
  position: number;
  config: Record<string, unknown>;
}

export interface DesignEdge {
  source: string;
  target: string;
  condition: string;
  type: EdgeType;
}

export type DesignEnsemble = EnsembleInput;

export interface Design {
  nodes: DesignNode[];
  edges: DesignEdge[];
  ensembles: DesignEnsemble[];
}
