// Canvas positions of a design's vertices; an ensemble without one sits just after its entry node.
import type { Design, DesignEnsemble } from '../domain/design';

export function ensemblePosition(design: Design, ensemble: DesignEnsemble): number {
  return positionAfterEntry(design, ensemble, new Set());
}

export function vertexPositions(design: Design): Map<string, number> {
  return new Map([
    ...design.nodes.map((node) => [node.name, node.position] as const),
    ...design.ensembles.map((ensemble) => [ensemble.name, ensemblePosition(design, ensemble)] as const),
  ]);
}

function positionAfterEntry(design: Design, ensemble: DesignEnsemble, visited: Set<string>): number {
  if (ensemble.position !== undefined) return ensemble.position;
  const entry = ensemble.entry_from_node;
  if (entry === undefined) return 0;
  const node = design.nodes.find((candidate) => candidate.name === entry);
  if (node) return node.position + 0.5;
  const upstream = design.ensembles.find((candidate) => candidate.name === entry);
  visited.add(ensemble.name);
  // Ensembles entering one another in a ring form a flow cycle that validation refuses; stop instead of recursing forever.
  if (!upstream || visited.has(upstream.name)) return 0;
  return positionAfterEntry(design, upstream, visited) + 0.5;
}
