// Every edge of a design with where it was written: its explicit edges and the flow edges ensemble wiring implies.
import type { Design, DesignEdge, DesignEnsemble } from '../domain/design';

export interface DesignWire {
  source: string;
  target: string;
  condition: string;
  type: DesignEdge['type'];
  /** True for the edges an ensemble's entry_from_node, on_pass_to and on_fail_to imply. */
  wiring: boolean;
  /** Field paths, for issues: of the edge as a whole, its source, its target and its condition. */
  at: { edge: string; source: string; target: string; condition: string };
}

export type ExecutedWire = DesignWire & { type: 'flow' | 'loopback' };

export function designWires(design: Design): DesignWire[] {
  return [...design.edges.map(explicitWire), ...design.ensembles.flatMap(ensembleWires)];
}

/** Flow and loopback edges are walked at run time; tool and agent_result wires never are. */
export function isExecuted(wire: DesignWire): wire is ExecutedWire {
  return wire.type === 'flow' || wire.type === 'loopback';
}

/** How an issue names a wire: `edges[3] (a -> b, pass)`. */
export function describeWire(wire: DesignWire): string {
  return `${wire.at.edge} (${wire.source} -> ${wire.target}, ${wire.condition})`;
}

function explicitWire(edge: DesignEdge, index: number): DesignWire {
  const at = `edges[${index}]`;
  return {
    source: edge.source,
    target: edge.target,
    condition: edge.condition,
    type: edge.type,
    wiring: false,
    at: { edge: at, source: `${at}.source`, target: `${at}.target`, condition: `${at}.condition` },
  };
}

function ensembleWires(ensemble: DesignEnsemble, index: number): DesignWire[] {
  const field = (name: string) => `ensembles[${index}].${name}`;
  const wires: DesignWire[] = [];
  if (ensemble.entry_from_node !== undefined) {
    wires.push(
      wiring(ensemble.entry_from_node, ensemble.name, ensemble.entry_condition ?? 'always', {
        edge: field('entry_from_node'),
        source: field('entry_from_node'),
        target: field('name'),
        condition: field('entry_condition'),
      }),
    );
  }
  const exits = [
    [ensemble.on_pass_to, 'pass', 'on_pass_to'],
    [ensemble.on_fail_to, 'fail', 'on_fail_to'],
  ] as const;
  for (const [target, condition, exit] of exits) {
    if (target === undefined) continue;
    const at = { edge: field(exit), source: field('name'), target: field(exit), condition: field(exit) };
    wires.push(wiring(ensemble.name, target, condition, at));
  }
  return wires;
}

function wiring(source: string, target: string, condition: string, at: DesignWire['at']): DesignWire {
  return { source, target, condition, type: 'flow', wiring: true, at };
}
