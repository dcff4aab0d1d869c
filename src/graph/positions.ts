// Canvas positions of a design's vertices; an ensemble without one sits just after the last vertex wired
// into it (its entries and the ensembles routing to it), so one entered from several places follows them all.
import type { Design, DesignEnsemble } from '../domain/design';
import { wiredSources } from './ensemble-wiring';

export function ensemblePosition(design: Design, ensemble: DesignEnsemble): number {
  return positionAfterSources(design, ensemble, new Set());
}

export function vertexPositions(design: Design): Map<string, number> {
  return new Map([
    ...design.nodes.map((node) => [node.name, node.position] as const),
    ...design.ensembles.map((ensemble) => [ensemble.name, ensemblePosition(design, ensemble)] as const),
  ]);
}

/** `path`: the ensembles whose positions wait on this one's. */
function positionAfterSources(design: Design, ensemble: DesignEnsemble, path: ReadonlySet<string>): number {
  if (ensemble.position !== undefined) return ensemble.position;
  const onPath = new Set(path).add(ensemble.name);
  const after = wiredSources(ensemble, design.ensembles).flatMap((source) => {
    const node = design.nodes.find((candidate) => candidate.name === source);
    if (node) return [node.position];
    const upstream = design.ensembles.find((candidate) => candidate.name === source);
    // Ensembles wired into one another in a ring form a flow cycle that validation refuses; stop instead of recursing forever.
    return upstream && !onPath.has(upstream.name) ? [positionAfterSources(design, upstream, onPath)] : [];
  });
  return after.length ? Math.max(...after) + 0.5 : 0;
}
