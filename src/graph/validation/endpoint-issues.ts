// Issues with edge and ensemble-wiring endpoints: each must name a node or an ensemble as a whole.
import type { Design } from '../../domain/design';
import type { Issue } from '../../domain/errors';
import type { DesignWire } from '../design-wires';
import { ensembleOfInternalName } from '../ensemble-names';

export function endpointIssues(design: Design, wires: DesignWire[]): Issue[] {
  const knownSet = new Set([...design.nodes.map((node) => node.name), ...design.ensembles.map((ensemble) => ensemble.name)]);
  const known = [...knownSet];
  return wires.flatMap((wire) =>
    [
      { name: wire.source, field: wire.at.source },
      { name: wire.target, field: wire.at.target },
    ].flatMap(({ name, field }) => (knownSet.has(name) ? [] : [{ field, message: endpointProblem(name, known) }])),
  );
}

function endpointProblem(name: string, known: string[]): string {
  const ensemble = ensembleOfInternalName(name);
  if (ensemble !== null) {
    return (
      `'${name}' is a member or quorum node inside ensemble '${ensemble}'; ensembles cannot be nested or wired into, ` +
      `so connect to the ensemble as one unit by its name '${ensemble}'`
    );
  }
  const choices = known.length ? `use one of: ${known.join(', ')}` : 'the design has none yet, so add it first';
  return `'${name}' is not a node or ensemble of this design; ${choices}`;
}
