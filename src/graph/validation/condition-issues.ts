// Issues with conditions on executed edges: each must be an outcome of its source (or always), and no
// outcome of a vertex may match two of the edges leaving it. An agent's or check's error outcome
// (an infrastructure failure) is matched by error edges only, which are flow edges.
import type { Design } from '../../domain/design';
import type { Issue } from '../../domain/errors';
import { describeWire, isExecuted, type DesignWire, type ExecutedWire } from '../design-wires';
import { ERROR_CONDITION } from '../infra-failures';
import { PASS_FAIL, PASS_FAIL_ERROR } from '../../node-kinds/kind';
import { NODE_KIND_RULES } from '../../node-kinds/registry';
import { addTo } from '../search';

export function conditionIssues(design: Design, wires: DesignWire[]): Issue[] {
  const outcomes = vertexOutcomes(design);
  const executed = wires.filter(isExecuted);
  return [...unknownConditionIssues(executed, outcomes), ...errorLoopbackIssues(executed, outcomes), ...conflictIssues(executed, outcomes)];
}

/** The error outcome, unlike a router's label of that name, is not what always stands for. */
function isInfraError(outcomes: readonly string[], outcome: string): boolean {
  return outcome === ERROR_CONDITION && outcomes === PASS_FAIL_ERROR;
}

function errorLoopbackIssues(wires: ExecutedWire[], outcomes: Map<string, readonly string[]>): Issue[] {
  return wires
    .filter((wire) => wire.type === 'loopback' && isInfraError(outcomes.get(wire.source) ?? [], wire.condition))
    .map((wire) => ({
      field: wire.at.condition,
      message:
        `${describeWire(wire)} is a loopback on error; another round cannot cure an infrastructure failure ` +
        '(infra_retries already ran it again), so make it a flow edge to a node that handles the failure',
    }));
}

function unknownConditionIssues(wires: ExecutedWire[], outcomes: Map<string, readonly string[]>): Issue[] {
  return wires.flatMap((wire) => {
    const choices = outcomes.get(wire.source);
    if (!choices || wire.condition === 'always' || choices.includes(wire.condition)) return [];
    return [
      {
        field: wire.at.condition,
        message:
          `'${wire.condition}' is not an outcome of '${wire.source}'; ` +
          `an edge leaving it takes one of: ${[...choices, 'always'].join(', ')}`,
      },
    ];
  });
}

function conflictIssues(wires: ExecutedWire[], outcomes: Map<string, readonly string[]>): Issue[] {
  const leaving = new Map<string, ExecutedWire[]>();
  for (const wire of wires) addTo(leaving, wire.source, wire);
  return [...outcomes].flatMap(([vertex, produced]) => conflictsLeaving(vertex, produced, leaving.get(vertex) ?? []));
}

/** One issue per set of edges that match the same outcomes, naming the edges and the outcomes. */
function conflictsLeaving(vertex: string, outcomes: readonly string[], wires: ExecutedWire[]): Issue[] {
  const conflicts = new Map<string, { wires: ExecutedWire[]; outcomes: string[] }>();
  for (const outcome of outcomes) {
    const alwaysMatches = !isInfraError(outcomes, outcome);
    const matching = wires.filter((wire) => wire.condition === outcome || (alwaysMatches && wire.condition === 'always'));
    if (matching.length < 2) continue;
    const key = matching.map((wire) => wire.at.edge).join('\n');
    const conflict = conflicts.get(key) ?? { wires: matching, outcomes: [] };
    conflict.outcomes.push(outcome);
    conflicts.set(key, conflict);
  }
  return [...conflicts.values()].map((conflict) => ({
    field: conflict.wires[conflict.wires.length - 1].at.edge,
    message:
      `${conflict.wires.map(describeWire).join(' and ')} match ${outcomeList(conflict.outcomes)} of '${vertex}'; ` +
      'only one executed edge may leave a vertex for each outcome (run agents in parallel with an ensemble instead), ' +
      'so change a condition or remove an edge',
  }));
}

function outcomeList(outcomes: string[]): string {
  return `${outcomes.length === 1 ? 'outcome' : 'outcomes'} ${outcomes.map((outcome) => `'${outcome}'`).join(', ')}`;
}

/** The outcomes each vertex can produce; a node whose config is invalid is left out, as its config issue already says why. */
function vertexOutcomes(design: Design): Map<string, readonly string[]> {
  const outcomes = new Map<string, readonly string[]>(design.ensembles.map((ensemble) => [ensemble.name, PASS_FAIL]));
  for (const node of design.nodes) {
    const produced = NODE_KIND_RULES[node.kind].outcomes(node.config);
    if (produced) outcomes.set(node.name, produced);
  }
  return outcomes;
}
