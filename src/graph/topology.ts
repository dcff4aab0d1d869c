// The walkable graph of a design: one vertex per node or ensemble, executed steps, loop bodies and budgets.
// It is plain JSON because the engine hands it to a Temporal workflow.
import type { Design, DesignNode } from '../domain/design';
import type { FailureKind } from '../domain/node-run';
import type { AuthoredNodeKind } from '../node-kinds/catalogue';
import { ERROR_CONDITION, isInfraFailure } from './infra-failures';
import { designWires, isExecuted } from './design-wires';
import { loopBodies } from './loop-bodies';
import { ensemblePosition } from './positions';

export type VertexKind = AuthoredNodeKind | 'ensemble';

export interface Vertex {
  name: string;
  kind: VertexKind;
  position: number;
  /** A node's config as the spec's walk found it, which each run of the node is handed; absent for an ensemble. */
  config?: Record<string, unknown>;
}

export interface Step {
  source: string;
  target: string;
  condition: string;
  type: 'flow' | 'loopback';
}

export interface Topology {
  vertices: Vertex[];
  edges: Step[];
  /** Loop head to the vertices a new round of its loop re-runs. */
  bodies: Record<string, string[]>;
  /** Loop head to its round budget. */
  budgets: Record<string, number>;
  /** Loop head to its max_stalled_rounds, for the heads with a watchdog; absent when none has one (and in graphs read before watchdogs). */
  stallLimits?: Record<string, number>;
}

/** Expects a design validateDesign accepted; `loopMaxStalledRounds` is the loop's watchdog, for heads that set none. */
export function buildTopology(design: Design, loopMaxIterations: number, loopMaxStalledRounds?: number): Topology {
  const edges = designWires(design)
    .filter(isExecuted)
    .map(({ source, target, condition, type }): Step => ({ source, target, condition, type }));
  const bodies = loopBodies(edges);
  const heads = Object.keys(bodies);
  const budgets = Object.fromEntries(heads.map((head) => [head, headSetting(design, head, 'max_iterations') ?? loopMaxIterations]));
  const stallLimits = Object.fromEntries(
    heads.flatMap((head) => {
      const limit = headSetting(design, head, 'max_stalled_rounds') ?? loopMaxStalledRounds;
      return limit === undefined ? [] : [[head, limit]];
    }),
  );
  const watched = Object.keys(stallLimits).length > 0;
  return { vertices: designVertices(design), edges, bodies, budgets, ...(watched && { stallLimits }) };
}

/** The lowest-position vertex no flow step enters (ties broken by name), or null for an empty graph. */
export function entryVertex(topology: Topology): string | null {
  const entered = new Set(topology.edges.filter((step) => step.type === 'flow').map((step) => step.target));
  const candidates = topology.vertices.filter((vertex) => !entered.has(vertex.name));
  // Code-unit comparison, not localeCompare: a workflow must decide the same way on every worker.
  candidates.sort((a, b) => a.position - b.position || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return candidates[0]?.name ?? null;
}

/** The executed steps leaving `vertex` that its outcome takes: those whose condition is the outcome or always. */
export function nextSteps(topology: Topology, vertex: string, outcome: string): Step[] {
  return topology.edges.filter((step) => step.source === vertex && (step.condition === outcome || step.condition === 'always'));
}

/** The error steps leaving `vertex`, which an agent or check takes when it failed for infrastructure reasons. */
export function errorSteps(topology: Topology, vertex: string): Step[] {
  return topology.edges.filter((step) => step.source === vertex && step.condition === ERROR_CONDITION);
}

/** The step an outcome at `vertex` takes (an infrastructure failure its error edge); undefined ends the spec there. */
export function stepAfter(
  topology: Topology,
  vertex: string,
  outcome: { outcome: string; failureKind: FailureKind | null },
): Step | undefined {
  return (isInfraFailure(outcome.failureKind) ? errorSteps(topology, vertex) : nextSteps(topology, vertex, outcome.outcome))[0];
}

function designVertices(design: Design): Vertex[] {
  return [
    ...design.nodes.map((node): Vertex => ({ name: node.name, kind: vertexKind(node), position: node.position, config: node.config })),
    ...design.ensembles.map((ensemble): Vertex => ({
      name: ensemble.name,
      kind: 'ensemble',
      position: ensemblePosition(design, ensemble),
    })),
  ];
}

function vertexKind(node: DesignNode): VertexKind {
  if (node.kind === 'quorum') {
    throw new Error(`Node '${node.name}' is a quorum node; a design holds ensembles as units, so validate it first.`);
  }
  return node.kind;
}

/** A head node's own budget or watchdog; an ensemble carries neither, so a loop it heads uses the loop's. */
function headSetting(design: Design, head: string, key: 'max_iterations' | 'max_stalled_rounds'): number | undefined {
  const value = design.nodes.find((node) => node.name === head)?.config[key];
  return typeof value === 'number' ? value : undefined;
}

/**
 * Vertices in the order a person reads the graph: every flow step's source before its target,
 * ties (and vertices only loopbacks reach) by position, then name.
 */
export function topologicalOrder(topology: Topology): Vertex[] {
  const byReading = (a: Vertex, b: Vertex) => a.position - b.position || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const flow = topology.edges.filter((step) => step.type === 'flow');
  const waitingOn = new Map(topology.vertices.map((vertex) => [vertex.name, 0]));
  for (const step of flow) waitingOn.set(step.target, (waitingOn.get(step.target) ?? 0) + 1);
  const ready = topology.vertices.filter((vertex) => waitingOn.get(vertex.name) === 0).sort(byReading);
  const ordered: Vertex[] = [];
  while (ready.length > 0) {
    const vertex = ready.shift()!;
    ordered.push(vertex);
    for (const step of flow.filter((s) => s.source === vertex.name)) {
      const left = waitingOn.get(step.target)! - 1;
      waitingOn.set(step.target, left);
      if (left === 0) {
        ready.push(topology.vertices.find((v) => v.name === step.target)!);
        ready.sort(byReading);
      }
    }
  }
  return ordered;
}
