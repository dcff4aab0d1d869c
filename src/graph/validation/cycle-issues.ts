// Issues with flow edges (ensemble wiring included) that close a cycle: flow must form a DAG.
import type { Design } from '../../domain/design';
import type { Issue } from '../../domain/errors';
import type { DesignWire } from '../design-wires';
import { vertexPositions } from '../positions';
import { addTo, shortestPath, type Adjacency } from '../search';

/**
 * Adds flow edges one by one and refuses each that closes a cycle. Edges pointing back on the canvas
 * go last, so the edge blamed is the one that most likely meant "go round again", whatever the order
 * the edges were written in.
 */
export function cycleIssues(design: Design, wires: DesignWire[]): Issue[] {
  const positions = vertexPositions(design);
  const pointsBack = (wire: DesignWire) => (positions.get(wire.target) ?? 0) <= (positions.get(wire.source) ?? 0);
  const flow = wires.filter((wire) => wire.type === 'flow');
  const ordered = [...flow.filter((wire) => !pointsBack(wire)), ...flow.filter(pointsBack)];

  const successors: Adjacency = new Map();
  const issues: Issue[] = [];
  for (const wire of ordered) {
    const back = shortestPath(wire.target, wire.source, successors);
    if (back) {
      issues.push({ field: wire.at.edge, message: cycleMessage(wire, [...back, wire.target]) });
    } else {
      addTo(successors, wire.source, wire.target);
    }
  }
  return issues;
}

function cycleMessage(wire: DesignWire, cycle: string[]): string {
  const closes = `this flow edge closes the cycle ${cycle.join(' -> ')}, and flow edges must form a DAG`;
  const loopback = JSON.stringify({ source: wire.source, target: wire.target, condition: wire.condition, type: 'loopback' });
  if (wire.wiring) return `${closes}. To send work back for another round, remove this wiring and add the edge ${loopback}`;
  return `${closes}. If it is meant to send work back for another round, mark it "type": "loopback"`;
}
