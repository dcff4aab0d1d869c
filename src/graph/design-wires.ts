// Every edge of a design with where it was written: its explicit edges and the flow edges ensemble wiring implies.
import type { Design, DesignEdge, DesignEnsemble } from '../domain/design';
import { entrySource, targetName } from './ensemble-wiring';

export interface DesignWire {
  source: string;
  target: string;
  condition: string;
  type: DesignEdge['type'];
  /** True for the edges an ensemble's entries, on_pass_to and on_fail_to imply. */
  wiring: boolean;
  /** What an end must be where the wiring says so ({"node": …} or {"ensemble": …}); a bare name may be either. */
  ends: { source?: 'node' | 'ensemble'; target?: 'ensemble' };
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
    ends: {},
    at: { edge: at, source: `${at}.source`, target: `${at}.target`, condition: `${at}.condition` },
  };
}

function ensembleWires(ensemble: DesignEnsemble, index: number): DesignWire[] {
  const field = (name: string) => `ensembles[${index}].${name}`;
  // An entry naming neither a node nor an ensemble is no wire; the ensemble's schema issue says so.
  const wires: DesignWire[] = (ensemble.entry_from ?? []).flatMap((entry, entryIndex) => {
    if (entry.node === undefined && entry.ensemble === undefined) return [];
    const at = field(`entry_from[${entryIndex}]`);
    const kind = entry.node === undefined ? 'ensemble' : 'node';
    const where = { edge: at, source: `${at}.${kind}`, target: field('name'), condition: `${at}.condition` };
    return [wiring(entrySource(entry), ensemble.name, entry.condition ?? 'always', where, { source: kind })];
  });
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
    const named = typeof target === 'string';
    const at = {
      edge: field(exit),
      source: field('name'),
      target: named ? field(exit) : field(`${exit}.ensemble`),
      condition: field(exit),
    };
    wires.push(wiring(ensemble.name, targetName(target), condition, at, named ? {} : { target: 'ensemble' }));
  }
  return wires;
}

function wiring(source: string, target: string, condition: string, at: DesignWire['at'], ends: DesignWire['ends'] = {}): DesignWire {
  return { source, target, condition, type: 'flow', wiring: true, at, ends };
}
