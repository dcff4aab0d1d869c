// Issues with edge and ensemble-wiring endpoints: each must name a node or an ensemble as a whole, of
// the kind the wiring says where it says one ({"node": …} or {"ensemble": …}).
import type { Design } from '../../domain/design';
import type { Issue } from '../../domain/errors';
import type { DesignWire } from '../design-wires';
import { ensembleOfInternalName } from '../ensemble-names';

export function endpointIssues(design: Design, wires: DesignWire[]): Issue[] {
  const nodes = design.nodes.map((node) => node.name);
  const ensembles = design.ensembles.map((ensemble) => ensemble.name);
  const kindOf = new Map<string, 'node' | 'ensemble'>([
    ...nodes.map((name) => [name, 'node'] as const),
    ...ensembles.map((name) => [name, 'ensemble'] as const),
  ]);
  return wires.flatMap((wire) =>
    [
      { name: wire.source, field: wire.at.source, expected: wire.ends.source },
      { name: wire.target, field: wire.at.target, expected: wire.ends.target },
    ].flatMap(({ name, field, expected }) => {
      const kind = kindOf.get(name);
      if (kind === undefined) return [{ field, message: endpointProblem(name, [...nodes, ...ensembles]) }];
      return expected === undefined || kind === expected ? [] : [{ field, message: kindProblem(name, kind) }];
    }),
  );
}

/** A {"node": …} or {"ensemble": …} end that names the other kind. */
function kindProblem(name: string, kind: 'node' | 'ensemble'): string {
  const [is, isNot] = kind === 'node' ? ['a node', 'an ensemble'] : ['an ensemble', 'a node'];
  return `'${name}' is ${is}, not ${isNot}; write {"${kind}": "${name}"}`;
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
