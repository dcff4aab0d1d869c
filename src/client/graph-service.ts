// Editing a loop's graph one node, edge or ensemble at a time. Every edit loads the loop's design,
// changes it, validates the whole result and stores it in one transaction, so a refused edit
// changes nothing and untouched parts keep their ids.
import { z } from 'zod';
import { Id, NodeName } from '../domain/common';
import type { Design, DesignEdge, DesignEnsemble, DesignNode } from '../domain/design';
import { EdgeCondition, EdgeInput, EdgeType } from '../domain/edge';
import { EnsembleEntry, EnsembleInput, type EnsembleTarget } from '../domain/ensemble';
import { CanopyError, invalidInput, notFound, parseOrThrow, type Issue } from '../domain/errors';
import { NodeKind } from '../domain/node';
import { AUTHORED_KIND_LIST } from '../node-kinds/catalogue';
import { ensembleOfInternalName } from '../graph/ensemble-names';
import { ensemblePosition } from '../graph/positions';
import { entryFrom, entrySource, targetName, withoutWiring } from '../graph/ensemble-wiring';
import { allDesignEdges, type StoredGraph, type StoredNode } from '../graph/stored-graph';
import { getEdge, getEnsemble, getNode } from '../store/graph-repository';
import { requireBlueprint } from './blueprints-service';
import type { ClientContext } from './context';
import { issuesUnder, loadDesign, requireValidDesign, storeDesign, type LoadedDesign } from './design-service';
import { viewGraph, type EdgeView, type EnsembleView, type GraphView } from './graph-view-service';

const Config = z.record(z.string(), z.unknown());
const FIND_IDS_HINT = 'See the ids of a loop’s nodes, edges and ensembles with `canopy loop get <loop_id>` (MCP: loop_get).';

export const AddNodeRequest = z
  .object({
    loop_id: Id,
    name: NodeName,
    kind: NodeKind.optional().describe(`${AUTHORED_KIND_LIST}; taken from the blueprint when one is named`),
    position: z.number().optional().describe('Canvas order (default: after every other node)'),
    config: Config.optional().describe('Kind-specific config; give config_overrides instead when naming a blueprint'),
    blueprint: z.string().min(1).optional().describe('Blueprint whose kind and config the node starts from'),
    config_overrides: Config.optional().describe('Keys laid over the blueprint’s config (shallow merge)'),
  })
  .strict();

export const UpdateNodeRequest = z
  .object({
    loop_id: Id.optional().describe('Loop the node must belong to'),
    node_id: Id,
    name: NodeName.optional(),
    position: z.number().optional(),
    config: Config.optional().describe('Replaces the whole config'),
  })
  .strict();

export const RemoveNodeRequest = z.object({ loop_id: Id.optional(), node_id: Id }).strict();

export const AddEdgeRequest = z.object({ loop_id: Id, ...EdgeInput.shape }).strict();

export const UpdateEdgeRequest = z.object({ edge_id: Id, condition: EdgeCondition.optional(), type: EdgeType.optional() }).strict();

export const RemoveEdgeRequest = z.object({ edge_id: Id }).strict();

export const AddEnsembleRequest = z
  .object({
    loop_id: Id,
    ...EnsembleInput.shape,
    from_node: z.string().min(1).optional().describe('Same as entry_from_node'),
    condition: z.string().min(1).optional().describe('Same as entry_condition'),
  })
  .strict();

const ensembleRef = {
  loop_id: Id,
  ensemble_id: Id.optional().describe('Id of the ensemble (or give its name)'),
  name: z.string().min(1).optional().describe('Name of the ensemble (or give its id)'),
};

/**
 * null clears an optional setting: min_pass null means every member must pass; null wiring removes that edge
 * (entry_from null every entry). Entries change as a whole (entry_from), one at a time (add_entry_from,
 * remove_entry_from), or, for an ensemble of one entry, by the older entry_from_node and entry_condition.
 */
export const UpdateEnsembleRequest = z
  .object({
    ...ensembleRef,
    prompt_template: EnsembleInput.shape.prompt_template.optional(),
    kind: EnsembleInput.shape.kind.nullable(),
    members: EnsembleInput.shape.members.optional(),
    min_pass: EnsembleInput.shape.min_pass.nullable(),
    straggler_timeout_minutes: EnsembleInput.shape.straggler_timeout_minutes.nullable(),
    quorum_grace_minutes: EnsembleInput.shape.quorum_grace_minutes.nullable(),
    timeout_minutes: EnsembleInput.shape.timeout_minutes.nullable(),
    idle_timeout_minutes: EnsembleInput.shape.idle_timeout_minutes.nullable(),
    isolation: EnsembleInput.shape.isolation.nullable(),
    entry_from: EnsembleInput.shape.entry_from.nullable(),
    add_entry_from: z.array(EnsembleEntry).min(1).optional().describe('Entries to add to the ensemble’s entries'),
    remove_entry_from: z
      .array(EnsembleEntry)
      .min(1)
      .optional()
      .describe('Entries to remove, each by the node or ensemble it comes from (and its condition, when given)'),
    entry_from_node: EnsembleInput.shape.entry_from_node.nullable(),
    entry_condition: EnsembleInput.shape.entry_condition.nullable(),
    on_pass_to: EnsembleInput.shape.on_pass_to.nullable(),
    on_fail_to: EnsembleInput.shape.on_fail_to.nullable(),
    position: EnsembleInput.shape.position,
  })
  .strict();

export const RemoveEnsembleRequest = z.object(ensembleRef).strict();

const copyTarget = {
  new_name: NodeName.describe('The copy’s name, free in the loop it goes to'),
  to_loop_id: Id.optional().describe('The loop the copy goes to (default: the same loop)'),
};

export const CopyNodeRequest = z
  .object({ loop_id: Id.optional().describe('Loop the node must belong to'), node_id: Id, ...copyTarget })
  .strict();

export const CopyEnsembleRequest = z.object({ ...ensembleRef, ...copyTarget }).strict();

interface Edit {
  design: Design;
  /** The graph ids are matched against by name; an edit that renames or re-keys a part passes it adjusted, so the part keeps its id. */
  previous?: StoredGraph;
  /** Issues under this part of the design are named by the caller's own fields. */
  subject?: { path: string; label: string };
  /** Renames issue fields further, after `subject` did. */
  relabel?: (issue: Issue) => Issue;
}

export async function addNode(ctx: ClientContext, request: unknown): Promise<StoredNode> {
  const input = parseOrThrow(AddNodeRequest, request, 'The node');
  const { kind, config } = await nodeKindAndConfig(ctx, input);
  return editGraph(
    ctx,
    input.loop_id,
    'The node',
    ({ design }) => {
      const node: DesignNode = { name: input.name, kind, position: input.position ?? nextPosition(design), config };
      return { design: { ...design, nodes: [...design.nodes, node] }, subject: { path: `nodes[${design.nodes.length}]`, label: 'node' } };
    },
    (saved) => saved.nodes.find((node) => node.name === input.name)!,
  );
}

/** Changes a plain node; its id stays, even when it is renamed. Edges and wiring follow a rename. */
export async function updateNode(ctx: ClientContext, request: unknown): Promise<StoredNode> {
  const input = parseOrThrow(UpdateNodeRequest, request, 'The node');
  const located = await locatePlainNode(ctx, input.node_id, input.loop_id, 'edit the ensemble with loop_update_ensemble');
  return editGraph(
    ctx,
    located.loop_id,
    'The node',
    ({ design, stored }) => {
      const current = nodeIn(stored, input.node_id);
      const index = design.nodes.findIndex((node) => node.name === current.name);
      const name = input.name ?? current.name;
      const node: DesignNode = {
        ...design.nodes[index],
        name,
        position: input.position ?? current.position,
        config: input.config ?? current.config,
      };
      const nodes = design.nodes.map((other, i) => (i === index ? node : other));
      return {
        design: redirect({ ...design, nodes }, current.name, name),
        previous: { ...stored, nodes: stored.nodes.map((other) => (other.id === current.id ? { ...other, name } : other)) },
        subject: { path: `nodes[${index}]`, label: 'node' },
      };
    },
    (saved) => saved.nodes.find((node) => node.id === input.node_id)!,
  );
}

/** Removes a plain node with every edge and ensemble wiring touching it; returns the node as it was. */
export async function removeNode(ctx: ClientContext, request: unknown): Promise<StoredNode> {
  const input = parseOrThrow(RemoveNodeRequest, request, 'The request');
  const located = await locatePlainNode(
    ctx,
    input.node_id,
    input.loop_id,
    'change its members with loop_update_ensemble, or remove it with loop_remove_ensemble',
  );
  return editGraph(
    ctx,
    located.loop_id,
    'The graph',
    ({ design, stored }) => {
      const { name } = nodeIn(stored, input.node_id);
      const remaining = redirect(design, name, null);
      return { design: { ...remaining, nodes: remaining.nodes.filter((node) => node.name !== name) } };
    },
    (_saved, before) => before.nodes.find((node) => node.id === input.node_id)!,
  );
}

/** Adds an edge between two nodes or ensembles, named as authors name them. */
export async function addEdge(ctx: ClientContext, request: unknown): Promise<EdgeView> {
  const { loop_id, ...edge } = parseOrThrow(AddEdgeRequest, request, 'The edge');
  return editGraph(
    ctx,
    loop_id,
    'The edge',
    ({ design }) => {
      const flat = withWiringAsEdges(design);
      refuseDuplicateEdge(flat.edges, edge);
      return { design: { ...flat, edges: [...flat.edges, edge] }, subject: { path: `edges[${flat.edges.length}]`, label: 'edge' } };
    },
    (saved) => saved.edges.find((view) => sameEdge(view, edge))!,
  );
}

/** Changes an edge's condition or type; it keeps its id. */
export async function updateEdge(ctx: ClientContext, request: unknown): Promise<EdgeView> {
  const input = parseOrThrow(UpdateEdgeRequest, request, 'The edge');
  const located = await locateEdge(ctx, input.edge_id);
  return editGraph(
    ctx,
    located.loop_id,
    'The edge',
    ({ design, stored }) => {
      const current = edgeIn(stored, input.edge_id);
      const changed: DesignEdge = { ...current, condition: input.condition ?? current.condition, type: input.type ?? current.type };
      const flat = withWiringAsEdges(design);
      const others = flat.edges.filter((edge) => !sameEdge(edge, current));
      refuseDuplicateEdge(others, changed);
      return {
        design: { ...flat, edges: [...others, changed] },
        previous: {
          ...stored,
          edges: stored.edges.map((edge) =>
            edge.id === current.id ? { ...edge, condition: changed.condition, type: changed.type } : edge,
          ),
        },
        subject: { path: `edges[${others.length}]`, label: 'edge' },
      };
    },
    (saved) => saved.edges.find((edge) => edge.id === input.edge_id)!,
  );
}

/** Removes an edge (an ensemble's entry or exit wiring included); returns it as it was. */
export async function removeEdge(ctx: ClientContext, request: unknown): Promise<EdgeView> {
  const input = parseOrThrow(RemoveEdgeRequest, request, 'The request');
  const located = await locateEdge(ctx, input.edge_id);
  return editGraph(
    ctx,
    located.loop_id,
    'The graph',
    ({ design, stored }) => {
      const removed = edgeIn(stored, input.edge_id);
      const flat = withWiringAsEdges(design);
      return { design: { ...flat, edges: flat.edges.filter((edge) => !sameEdge(edge, removed)) } };
    },
    (_saved, before) => before.edges.find((edge) => edge.id === input.edge_id)!,
  );
}

/** Adds an ensemble as one unit: its member and quorum nodes and its wiring are made from it. */
export async function addEnsemble(ctx: ClientContext, request: unknown): Promise<EnsembleView> {
  const { loop_id, from_node, condition, ...fields } = parseOrThrow(AddEnsembleRequest, request, 'The ensemble');
  const ensemble = parseOrThrow(
    EnsembleInput,
    {
      ...fields,
      entry_from_node: alias(fields.entry_from_node, from_node, 'from_node'),
      entry_condition: alias(fields.entry_condition, condition, 'condition'),
    },
    'The ensemble',
  );
  return editGraph(
    ctx,
    loop_id,
    'The ensemble',
    ({ design }) => ({
      design: { ...design, ensembles: [...design.ensembles, stripUndefined(ensemble)] },
      subject: { path: `ensembles[${design.ensembles.length}]`, label: 'ensemble' },
    }),
    (saved) => saved.ensembles.find((view) => view.name === ensemble.name)!,
  );
}

/**
 * Changes an ensemble's settings, members or wiring. Every member without its own prompt_override
 * takes a new shared prompt_template. Ensembles are not renamed: remove and add one instead.
 */
export async function updateEnsemble(ctx: ClientContext, request: unknown): Promise<EnsembleView> {
  const { loop_id, ensemble_id, name, ...changes } = parseOrThrow(UpdateEnsembleRequest, request, 'The ensemble');
  const { entry_from, add_entry_from, remove_entry_from, entry_from_node, entry_condition, ...settings } = changes;
  const entryChanges = { entry_from, add_entry_from, remove_entry_from, entry_from_node, entry_condition };
  const ref = await locateEnsemble(ctx, loop_id, ensemble_id, name);
  return editGraph(
    ctx,
    loop_id,
    'The ensemble',
    ({ design }) => {
      const index = ensembleIndex(design, ref);
      const isEnsemble = (vertex: string) => design.ensembles.some((ensemble) => ensemble.name === vertex);
      const current = design.ensembles[index];
      const { entries, added } = changedEntries(current, entryChanges, isEnsemble);
      const { entry_from: _entries, ...updated } = applyChanges(current, settings);
      const ensemble = entries.length ? { ...updated, entry_from: entries } : updated;
      return {
        design: { ...design, ensembles: design.ensembles.map((other, i) => (i === index ? ensemble : other)) },
        subject: { path: `ensembles[${index}]`, label: 'ensemble' },
        relabel: added ? addedEntryFields(added.from) : undefined,
      };
    },
    (saved) => saved.ensembles.find((view) => view.name === ref.name)!,
  );
}

/** Removes an ensemble with its member and quorum nodes and every edge and wiring touching it; returns it as it was. */
export async function removeEnsemble(ctx: ClientContext, request: unknown): Promise<EnsembleView> {
  const { loop_id, ensemble_id, name } = parseOrThrow(RemoveEnsembleRequest, request, 'The request');
  const ref = await locateEnsemble(ctx, loop_id, ensemble_id, name);
  return editGraph(
    ctx,
    loop_id,
    'The graph',
    ({ design }) => {
      const index = ensembleIndex(design, ref);
      const remaining = redirect(design, ref.name, null);
      return { design: { ...remaining, ensembles: remaining.ensembles.filter((_, i) => i !== index) } };
    },
    (_saved, before) => before.ensembles.find((view) => view.name === ref.name)!,
  );
}

/** Copies a plain node, kind and config, under a new name into its loop or another; no edge is copied. */
export async function copyNode(ctx: ClientContext, request: unknown): Promise<StoredNode> {
  const input = parseOrThrow(CopyNodeRequest, request, 'The copy');
  const source = await locatePlainNode(ctx, input.node_id, input.loop_id, 'copy the whole ensemble with loop_copy_ensemble');
  return editGraph(
    ctx,
    input.to_loop_id ?? source.loop_id,
    'The copy',
    ({ design }) => {
      const node: DesignNode = { name: input.new_name, kind: source.kind, position: nextPosition(design), config: source.config };
      return { design: { ...design, nodes: [...design.nodes, node] }, subject: { path: `nodes[${design.nodes.length}]`, label: 'copy' } };
    },
    (saved) => saved.nodes.find((node) => node.name === input.new_name)!,
  );
}

/** Copies an ensemble, its members and settings, under a new name into its loop or another; its wiring is not copied. */
export async function copyEnsemble(ctx: ClientContext, request: unknown): Promise<EnsembleView> {
  const { loop_id, ensemble_id, name, new_name, to_loop_id } = parseOrThrow(CopyEnsembleRequest, request, 'The copy');
  const ref = await locateEnsemble(ctx, loop_id, ensemble_id, name);
  const { design: source } = await loadDesign(ctx.db, loop_id);
  const { position, ...unit } = withoutWiring(source.ensembles[ensembleIndex(source, ref)]);
  return editGraph(
    ctx,
    to_loop_id ?? loop_id,
    'The copy',
    ({ design }) => ({
      design: { ...design, ensembles: [...design.ensembles, { ...unit, name: new_name, position: nextPosition(design) }] },
      subject: { path: `ensembles[${design.ensembles.length}]`, label: 'copy' },
    }),
    (saved) => saved.ensembles.find((view) => view.name === new_name)!,
  );
}

/** Loads, edits, validates and stores the loop's design in one transaction; `pick` finds the result in the graph after (or before) the edit. */
async function editGraph<T>(
  ctx: ClientContext,
  loopId: string,
  what: string,
  edit: (loaded: LoadedDesign) => Edit,
  pick: (saved: GraphView, before: GraphView) => T,
): Promise<T> {
  return ctx.db.transaction().execute(async (tx) => {
    const loaded = await loadDesign(tx, loopId);
    const { design, previous = loaded.stored, subject, relabel = (issue: Issue) => issue } = edit(loaded);
    const under = subject ? issuesUnder(subject.path, subject.label) : (issue: Issue) => issue;
    requireValidDesign(design, what, (issue) => relabel(under(issue)));
    const saved = await storeDesign(tx, loopId, design, previous);
    return pick(viewGraph(saved), viewGraph(loaded.stored));
  });
}

/** A blueprint gives the kind and a config that config_overrides is laid over; without one, kind and config are the caller's. */
async function nodeKindAndConfig(ctx: ClientContext, input: z.output<typeof AddNodeRequest>): Promise<Pick<DesignNode, 'kind' | 'config'>> {
  if (input.blueprint === undefined) {
    const issues: Issue[] = [];
    if (input.kind === undefined) issues.push({ field: 'kind', message: `is required: give ${AUTHORED_KIND_LIST}, or name a blueprint` });
    if (input.config_overrides !== undefined)
      issues.push({ field: 'config_overrides', message: 'applies to a blueprint only: name one, or give config' });
    if (issues.length) throw invalidInput('The node', issues);
    return { kind: input.kind!, config: input.config ?? {} };
  }
  const blueprint = await requireBlueprint(ctx.db, input.blueprint);
  const issues: Issue[] = [];
  if (input.kind !== undefined && input.kind !== blueprint.kind) {
    issues.push({ field: 'kind', message: `blueprint '${blueprint.name}' makes ${blueprint.kind} nodes; leave kind out` });
  }
  if (input.config !== undefined) {
    issues.push({ field: 'config', message: 'would replace the blueprint’s config; give the keys to change as config_overrides' });
  }
  if (issues.length) throw invalidInput('The node', issues);
  return { kind: blueprint.kind, config: { ...blueprint.config, ...input.config_overrides } };
}

/** A node outside any ensemble: member and quorum nodes change only through their ensemble (`fix` says how). */
async function locatePlainNode(ctx: ClientContext, nodeId: string, loopId: string | undefined, fix: string): Promise<StoredNode> {
  const node = await getNode(ctx.db, nodeId);
  if (!node || (loopId !== undefined && node.loop_id !== loopId)) throw notFound('node', nodeId, FIND_IDS_HINT);
  if (node.ensemble_id !== null) {
    throw new CanopyError('refused', `Node '${node.name}' is part of ensemble '${ensembleOfInternalName(node.name)}': ${fix}.`);
  }
  return node;
}

async function locateEdge(ctx: ClientContext, edgeId: string): Promise<{ loop_id: string }> {
  const edge = await getEdge(ctx.db, edgeId);
  if (!edge) throw notFound('edge', edgeId, FIND_IDS_HINT);
  return edge;
}

async function locateEnsemble(
  ctx: ClientContext,
  loopId: string,
  ensembleId: string | undefined,
  name: string | undefined,
): Promise<{ name: string }> {
  if ((ensembleId === undefined) === (name === undefined)) {
    throw invalidInput('The request', [{ field: 'ensemble_id', message: 'give either ensemble_id or name (not both)' }]);
  }
  if (name !== undefined) return { name };
  const ensemble = await getEnsemble(ctx.db, ensembleId!);
  if (!ensemble || ensemble.loop_id !== loopId) throw notFound('ensemble', ensembleId!, FIND_IDS_HINT);
  return ensemble;
}

function ensembleIndex(design: Design, ref: { name: string }): number {
  const index = design.ensembles.findIndex((ensemble) => ensemble.name === ref.name);
  if (index < 0) throw new CanopyError('not_found', `No ensemble is named '${ref.name}' in this loop. ${FIND_IDS_HINT}`);
  return index;
}

/** The stored node with this id, re-read inside the edit's transaction. */
function nodeIn(stored: StoredGraph, nodeId: string): StoredNode {
  const node = stored.nodes.find((candidate) => candidate.id === nodeId);
  if (!node) throw notFound('node', nodeId, FIND_IDS_HINT);
  return node;
}

function edgeIn(stored: StoredGraph, edgeId: string): EdgeView {
  const edge = viewGraph(stored).edges.find((candidate) => candidate.id === edgeId);
  if (!edge) throw notFound('edge', edgeId, FIND_IDS_HINT);
  return edge;
}

function nextPosition(design: Design): number {
  const positions = [
    ...design.nodes.map((node) => node.position),
    ...design.ensembles.map((ensemble) => ensemblePosition(design, ensemble)),
  ];
  return positions.length ? Math.max(...positions) + 1 : 1;
}

/** The same design with every ensemble's wiring written as plain edges, so an edge edit finds wiring among the edges. */
function withWiringAsEdges(design: Design): Design {
  return { nodes: design.nodes, edges: allDesignEdges(design), ensembles: design.ensembles.map(withoutWiring) };
}

function sameEdge(a: DesignEdge, b: DesignEdge): boolean {
  return a.source === b.source && a.target === b.target && a.condition === b.condition && a.type === b.type;
}

/** Two identical edges would be one edge stored twice; refuse the second. */
function refuseDuplicateEdge(edges: DesignEdge[], edge: DesignEdge): void {
  if (edges.some((other) => sameEdge(other, edge))) {
    throw new CanopyError('conflict', `The graph already has the ${edge.type} edge ${edge.source} -> ${edge.target} (${edge.condition}).`);
  }
}

/**
 * Points every edge end and ensemble wiring at `from` to `to` instead; with `to` null, those edges
 * are dropped and that wiring is cleared. A loaded design gives its entries as entry_from.
 */
function redirect(design: Design, from: string, to: string | null): Design {
  const end = (name: string) => (name === from ? to : name);
  const edges = design.edges.flatMap((edge) => {
    const [source, target] = [end(edge.source), end(edge.target)];
    return source === null || target === null ? [] : [{ ...edge, source, target }];
  });
  const route = (target: EnsembleTarget | undefined): EnsembleTarget | undefined => {
    const name = target === undefined ? null : end(targetName(target));
    if (name === null) return undefined;
    return typeof target === 'string' ? name : { ensemble: name };
  };
  const ensembles = design.ensembles.map((ensemble): DesignEnsemble => {
    const entries = (ensemble.entry_from ?? []).flatMap((entry) => {
      const source = end(entrySource(entry));
      if (source === null) return [];
      return [entry.node === undefined ? { ...entry, ensemble: source } : { ...entry, node: source }];
    });
    return stripUndefined({
      ...withoutWiring(ensemble),
      entry_from: entries.length ? entries : undefined,
      on_pass_to: route(ensemble.on_pass_to),
      on_fail_to: route(ensemble.on_fail_to),
    });
  });
  return { ...design, edges, ensembles };
}

/** Lays changes over an ensemble: undefined keeps a setting, null removes it. */
function applyChanges(ensemble: DesignEnsemble, changes: Record<string, unknown>): DesignEnsemble {
  const updated: Record<string, unknown> = { ...ensemble };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete updated[key];
    else if (value !== undefined) updated[key] = value;
  }
  return updated as DesignEnsemble;
}

type EntryChanges = Pick<
  z.output<typeof UpdateEnsembleRequest>,
  'entry_from' | 'add_entry_from' | 'remove_entry_from' | 'entry_from_node' | 'entry_condition'
>;

/**
 * The ensemble's entries after an update, and where the added ones begin in them. Every refusal
 * names the field given: a whole list with anything else, a single-entry change to an ensemble
 * with several (or none), removing an entry it does not have, adding one from a vertex it already
 * has one from.
 */
function changedEntries(
  ensemble: DesignEnsemble,
  changes: EntryChanges,
  isEnsemble: (name: string) => boolean,
): { entries: EnsembleEntry[]; added?: { from: number } } {
  const current = ensemble.entry_from ?? [];
  const { entry_from, add_entry_from, remove_entry_from, entry_from_node, entry_condition } = changes;
  const stepwise = add_entry_from !== undefined || remove_entry_from !== undefined;
  const single = entry_from_node !== undefined || entry_condition !== undefined;
  if (entry_from !== undefined && (stepwise || single)) {
    throw wiringRefusal(
      'entry_from',
      'replaces every entry, so give it alone (or change entries one at a time with add_entry_from and remove_entry_from)',
    );
  }
  if (entry_from !== undefined) return { entries: entry_from ?? [] };
  if (single && stepwise) {
    throw wiringRefusal(
      entry_from_node !== undefined ? 'entry_from_node' : 'entry_condition',
      'changes an ensemble’s one entry; give add_entry_from and remove_entry_from without it',
    );
  }
  if (single) return { entries: singleEntry(current, entry_from_node, entry_condition, isEnsemble) };
  const issues: Issue[] = [];
  let entries = current;
  (remove_entry_from ?? []).forEach((removal, index) => {
    const source = entrySource(removal);
    const found = entries.find((entry) => entrySource(entry) === source);
    const field = `remove_entry_from[${index}]`;
    if (!found) issues.push({ field, message: `'${ensemble.name}' has no entry from '${source}'; ${entriesNamed(entries)}` });
    else if (removal.condition !== undefined && removal.condition !== (found.condition ?? 'always')) {
      issues.push({
        field: `${field}.condition`,
        message: `the entry from '${source}' is on ${found.condition ?? 'always'}, not ${removal.condition}; leave condition out or give ${found.condition ?? 'always'}`,
      });
    } else entries = entries.filter((entry) => entry !== found);
  });
  const from = entries.length;
  (add_entry_from ?? []).forEach((addition, index) => {
    const source = entrySource(addition);
    const found = entries.find((entry) => entrySource(entry) === source);
    if (found) {
      issues.push({
        field: `add_entry_from[${index}]`,
        message: `'${ensemble.name}' already has an entry from '${source}' (on ${found.condition ?? 'always'}); one entry per node or ensemble, so remove that one first with remove_entry_from`,
      });
    } else entries = [...entries, addition];
  });
  if (issues.length) throw invalidInput('The ensemble', issues);
  return { entries, ...(add_entry_from && { added: { from } }) };
}

/** entry_from_node and entry_condition as they always were, for an ensemble of at most one entry: null removes it. */
function singleEntry(
  current: EnsembleEntry[],
  node: string | null | undefined,
  condition: string | null | undefined,
  isEnsemble: (name: string) => boolean,
): EnsembleEntry[] {
  const field = node !== undefined ? 'entry_from_node' : 'entry_condition';
  if (current.length > 1) {
    throw wiringRefusal(
      field,
      `changes an ensemble’s one entry, and this one has ${current.length}; ${entriesNamed(current)}: use add_entry_from and remove_entry_from, or entry_from for the whole list`,
    );
  }
  if (node === null) return [];
  const source = node ?? (current.length ? entrySource(current[0]) : undefined);
  if (source === undefined)
    throw wiringRefusal(
      'entry_condition',
      'is the condition of an entry, and this ensemble has none; give entry_from_node with it, or use add_entry_from',
    );
  const kept = condition === undefined ? current[0]?.condition : (condition ?? undefined);
  return [entryFrom(source, kept, isEnsemble)];
}

function entriesNamed(entries: EnsembleEntry[]): string {
  if (!entries.length) return 'it has no entries';
  return `its entries come from ${entries.map((entry) => `'${entrySource(entry)}' (${entry.condition ?? 'always'})`).join(', ')}`;
}

function wiringRefusal(field: string, message: string): CanopyError {
  return invalidInput('The ensemble', [{ field, message }]);
}

/** Issues about entries an update added name them as the caller did: entry_from[from + i] is add_entry_from[i]. */
function addedEntryFields(from: number): (issue: Issue) => Issue {
  return (issue) => {
    const match = /^entry_from\[(\d+)\](.*)$/.exec(issue.field);
    if (!match || Number(match[1]) < from) return issue;
    return { ...issue, field: `add_entry_from[${Number(match[1]) - from}]${match[2]}` };
  };
}

/** The canonical field wins; its alias may repeat it but not contradict it. */
function alias(canonical: string | undefined, aliasValue: string | undefined, aliasName: string): string | undefined {
  if (canonical !== undefined && aliasValue !== undefined && canonical !== aliasValue) {
    throw invalidInput('The ensemble', [
      { field: aliasName, message: `contradicts its canonical field ('${canonical}' vs '${aliasValue}'); give one of them` },
    ]);
  }
  return canonical ?? aliasValue;
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
