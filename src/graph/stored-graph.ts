// Converting between a design (ensembles as units, edges by name) and the stored graph (ensembles
// expanded into member and quorum nodes, edges by node id). Ids survive a round trip by name.
import type { Design, DesignEdge, DesignEnsemble, DesignNode } from '../domain/design';
import type { Edge } from '../domain/edge';
import { type Ensemble, type ENSEMBLE_WIRING_KEYS, quorumMinPass } from '../domain/ensemble';
import type { Node } from '../domain/node';
import { designWires } from './design-wires';
import { memberNodeName, quorumNodeName } from './ensemble-names';
import { entryFrom, targetTo, withoutWiring } from './ensemble-wiring';
import { ensemblePosition } from './positions';

/** A node with its place among its ensemble's members (null outside an ensemble and for the quorum). */
export type StoredNode = Node & { member_index: number | null };

/** An ensemble as stored: its entry and exit wiring are edges, its quorum is one of its nodes. */
export type StoredEnsemble = Omit<Ensemble, (typeof ENSEMBLE_WIRING_KEYS)[number]> & {
  quorum_node_id: string;
};

export interface StoredGraph {
  nodes: StoredNode[];
  edges: Edge[];
  ensembles: StoredEnsemble[];
}

export type IdMaker = (prefix: 'node' | 'edge' | 'ens') => string;

/** The design a stored graph presents: ensembles folded back into one unit each. */
export function designFromStored(graph: StoredGraph): Design {
  const vertexName = new Map<string, string>();
  for (const node of graph.nodes) if (node.ensemble_id === null) vertexName.set(node.id, node.name);
  for (const ensemble of graph.ensembles) vertexName.set(ensemble.quorum_node_id, ensemble.name);
  const named = sortEdges(
    graph.edges.map((edge) => ({
      source: vertexName.get(edge.source_id)!,
      target: vertexName.get(edge.target_id)!,
      condition: edge.condition,
      type: edge.type,
    })),
  );
  const ensembleNames = new Set(graph.ensembles.map((e) => e.name));
  const isEnsemble = (name: string) => ensembleNames.has(name);
  const wiring = new Set<DesignEdge>();
  const isFlow = (edge: DesignEdge) => edge.type === 'flow' && !wiring.has(edge);
  const take = (edge: DesignEdge | undefined) => {
    if (edge) wiring.add(edge);
    return edge;
  };
  const byPosition = sortByPosition(graph.ensembles);
  // Exits first: a pass or fail edge from one ensemble to another is the first's on_pass_to or on_fail_to.
  const exits = new Map(
    byPosition.map((stored) => {
      const exit = (condition: string) => take(named.find((e) => isFlow(e) && e.source === stored.name && e.condition === condition));
      return [stored.name, { onPass: exit('pass'), onFail: exit('fail') }];
    }),
  );
  const ensembles = byPosition.map((stored): DesignEnsemble => {
    const { onPass, onFail } = exits.get(stored.name)!;
    // One entry from each vertex; a second flow edge from the same one stays an edge of its own.
    const entries: DesignEdge[] = [];
    for (const edge of named.filter((e) => isFlow(e) && e.target === stored.name)) {
      if (!entries.some((entry) => entry.source === edge.source)) entries.push(take(edge)!);
    }
    return withoutUndefined({
      name: stored.name,
      prompt_template: stored.prompt_template,
      members: stored.members,
      min_pass: stored.min_pass,
      straggler_timeout_minutes: stored.straggler_timeout_minutes,
      quorum_grace_minutes: stored.quorum_grace_minutes,
      timeout_minutes: stored.timeout_minutes,
      idle_timeout_minutes: stored.idle_timeout_minutes,
      isolation: stored.isolation,
      kind: stored.kind,
      entry_from: entries.length ? entries.map((entry) => entryFrom(entry.source, entry.condition, isEnsemble)) : undefined,
      on_pass_to: onPass && targetTo(onPass.target, isEnsemble),
      on_fail_to: onFail && targetTo(onFail.target, isEnsemble),
      position: stored.position,
    });
  });
  const nodes = sortByPosition(graph.nodes.filter((n) => n.ensemble_id === null)).map((node): DesignNode => ({
    name: node.name,
    kind: node.kind,
    position: node.position,
    config: node.config,
  }));
  return { nodes, edges: named.filter((edge) => !wiring.has(edge)), ensembles };
}

/**
 * The stored graph of a (validated) design. Nodes, ensembles and edges that `previous` already
 * holds under the same name keep their ids, so node runs and CLI references stay attached.
 */
export function expandDesign(loopId: string, design: Design, previous: StoredGraph, newId: IdMaker): StoredGraph {
  const oldNodeId = new Map(previous.nodes.map((n) => [n.name, n.id]));
  const oldEnsembleId = new Map(previous.ensembles.map((e) => [e.name, e.id]));
  const oldEdgeId = new Map(previous.edges.map((e) => [edgeKey(e.source_id, e.target_id, e.condition, e.type), e.id]));
  const nodeId = (name: string) => oldNodeId.get(name) ?? newId('node');

  const nodes: StoredNode[] = design.nodes.map((n) => ({
    id: nodeId(n.name),
    loop_id: loopId,
    ensemble_id: null,
    member_index: null,
    ...n,
  }));
  const ensembles: StoredEnsemble[] = [];
  const vertexId = new Map(nodes.map((n) => [n.name, n.id]));
  for (const ensemble of design.ensembles) {
    const id = oldEnsembleId.get(ensemble.name) ?? newId('ens');
    const position = ensemblePosition(design, ensemble);
    const quorum = quorumNodeName(ensemble.name);
    const quorumId = nodeId(quorum);
    ensembles.push({ ...withoutWiring(ensemble), id, loop_id: loopId, position, quorum_node_id: quorumId });
    ensemble.members.forEach((_, index) => {
      const name = memberNodeName(ensemble.name, index);
      const config = memberConfig(ensemble, index);
      nodes.push({ id: nodeId(name), loop_id: loopId, name, kind: 'agent', position, config, ensemble_id: id, member_index: index });
    });
    const quorumConfig = { min_pass: quorumMinPass(ensemble) };
    nodes.push({
      id: quorumId,
      loop_id: loopId,
      name: quorum,
      kind: 'quorum',
      position,
      config: quorumConfig,
      ensemble_id: id,
      member_index: null,
    });
    vertexId.set(ensemble.name, quorumId);
  }
  const edges: Edge[] = allDesignEdges(design).map((edge) => {
    const source_id = vertexId.get(edge.source)!;
    const target_id = vertexId.get(edge.target)!;
    const id = oldEdgeId.get(edgeKey(source_id, target_id, edge.condition, edge.type)) ?? newId('edge');
    return { id, loop_id: loopId, source_id, target_id, condition: edge.condition, type: edge.type };
  });
  return { nodes, edges, ensembles };
}

/** The config of one member node: the shared prompt unless the member overrides it. */
export function memberConfig(ensemble: DesignEnsemble, index: number): Record<string, unknown> {
  const member = ensemble.members[index];
  return withoutUndefined({
    platform: member.platform,
    model: member.model,
    prompt_template: member.prompt_override ?? ensemble.prompt_template,
    timeout_minutes: member.timeout_minutes ?? ensemble.timeout_minutes,
    idle_timeout_minutes: member.idle_timeout_minutes ?? ensemble.idle_timeout_minutes,
    resume: member.resume,
  });
}

/** Explicit edges plus the flow edges ensemble wiring stands for. */
export function allDesignEdges(design: Design): DesignEdge[] {
  return designWires(design).map(({ source, target, condition, type }) => ({ source, target, condition, type }));
}

function edgeKey(source: string, target: string, condition: string, type: string): string {
  return JSON.stringify([source, target, condition, type]);
}

function sortByPosition<T extends { position?: number | null; name: string }>(items: T[]): T[] {
  return [...items].sort((a, b) => (a.position ?? 0) - (b.position ?? 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function sortEdges(edges: DesignEdge[]): DesignEdge[] {
  const key = (e: DesignEdge) => JSON.stringify([e.source, e.target, e.condition, e.type]);
  return [...edges].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** Drops absent fields (undefined or a null column) so designs and configs carry only what was given. */
function withoutUndefined<T extends Record<string, unknown>>(value: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as {
    [K in keyof T]: Exclude<T[K], null>;
  };
}
