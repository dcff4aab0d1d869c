// Export and import: a loop's design as one document of the newest format_version, with no ids,
// workdir, specs or state, and recreating it as a new loop from a document of any version.
import type { Design, DesignEnsemble } from '../domain/design';
import { CanopyError, invalidInput, parseOrThrow } from '../domain/errors';
import { ExportDocument, FORMAT_VERSION, type ExportEdge, type ExportNode } from '../domain/export-document';
import { LoopName } from '../domain/loop';
import { withShownReceivers } from '../domain/notify';
import { hookPlaceholderIssues } from '../graph/hook-placeholders';
import { memberNodeName } from '../graph/ensemble-names';
import { ensemblePosition } from '../graph/positions';
import { insertLoop, loopNamesInWorkdir } from '../store/loops-repository';
import { withoutByteOrderMark } from '../user-files';
import type { ClientContext } from './context';
import { EMPTY_GRAPH, loadDesign, requireValidDesign, storeDesign } from './design-service';
import { requireWorkdir } from './workdir';

export interface ExportOptions {
  /** Keep platform and model on agent nodes and ensemble members (for restoring on one's own machine). */
  with_models?: boolean;
}

export interface ImportOptions {
  /** An absolute path of an existing directory; default: the current directory. */
  workdir?: string;
  /** Overrides the document's own name. */
  name?: string;
}

export interface ImportResult {
  loop_id: string;
  /** The name used: the requested one, or it with a numeric suffix when that was taken in the workdir. */
  name: string;
  /** Agent nodes, and ensemble members as `<ensemble>/member-N`, that have no platform yet. */
  nodes_missing_platform: string[];
}

const WHAT = 'The loop file';

export async function exportLoop(ctx: ClientContext, loopId: string, options: ExportOptions = {}): Promise<ExportDocument> {
  const { loop, design } = await loadDesign(ctx.db, loopId);
  refuseDuplicateNames(design);
  const withModels = options.with_models ?? false;
  return {
    format_version: FORMAT_VERSION,
    name: loop.name,
    description: loop.description,
    // A receiver's URL leaves only with its secret parts hidden; an import of it asks for the full URL.
    ...(Object.keys(loop.settings).length > 0 && { settings: withShownReceivers(loop).settings }),
    // Hooks keep their platform and model: unlike nodes, an agent hook cannot be left without one.
    ...(Object.keys(loop.hooks).length > 0 && { hooks: loop.hooks }),
    nodes: design.nodes.map((node): ExportNode => ({
      ...node,
      config: node.kind === 'agent' && !withModels ? withoutModel(node.config) : node.config,
    })),
    edges: design.edges.map(({ type, ...edge }): ExportEdge => (type === 'flow' ? edge : { ...edge, type })),
    ensembles: design.ensembles.map((ensemble) => exportedEnsemble(design, ensemble, withModels)),
  };
}

/**
 * Always creates a new loop, from a JSON string or an already parsed document. Every problem with
 * the document is reported at once, and nothing is written unless the whole document is valid.
 */
export async function importLoop(ctx: ClientContext, document: unknown, options: ImportOptions = {}): Promise<ImportResult> {
  const parsed = parseOrThrow(ExportDocument, parseJson(document), WHAT);
  const design: Design = {
    nodes: parsed.nodes,
    edges: parsed.edges.map((edge) => ({ ...edge, type: edge.type ?? 'flow' })),
    ensembles: parsed.ensembles,
  };
  requireValidDesign(design, WHAT);
  const hookIssues = hookPlaceholderIssues(parsed.hooks ?? {});
  if (hookIssues.length) throw invalidInput(WHAT, hookIssues);
  const name = parseOrThrow(LoopName, options.name ?? parsed.name, 'The loop', 'name');
  const workdir = requireWorkdir(options.workdir ?? process.cwd(), WHAT);
  return ctx.db.transaction().execute(async (tx) => {
    const loop = await insertLoop(tx, {
      name: freeName(name, await loopNamesInWorkdir(tx, workdir)),
      workdir,
      // Documents carry no host (they travel between machines): the loop lives where it is imported.
      host: ctx.config.hostId,
      description: parsed.description,
      settings: parsed.settings ?? {},
      hooks: parsed.hooks ?? {},
    });
    await storeDesign(tx, loop.id, design, EMPTY_GRAPH);
    return { loop_id: loop.id, name: loop.name, nodes_missing_platform: nodesMissingPlatform(design) };
  });
}

function parseJson(document: unknown): unknown {
  if (typeof document !== 'string') return document;
  try {
    return JSON.parse(withoutByteOrderMark(document));
  } catch (error) {
    throw invalidInput(WHAT, [{ field: '(document)', message: `is not valid JSON (${(error as Error).message}); fix the syntax` }]);
  }
}

/** Edges in the file name their ends, so every name must point at one node or ensemble. */
function refuseDuplicateNames(design: Design): void {
  const names = [...design.nodes, ...design.ensembles].map((vertex) => vertex.name);
  const repeated = [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
  if (repeated.length) {
    throw new CanopyError(
      'refused',
      `The loop cannot be exported: edges in the file name their ends, and these names are used more than once: ${repeated.join(', ')}. Rename them first.`,
    );
  }
}

/** An ensemble keeps its position only where it differs from the default, just after its entry node. */
function exportedEnsemble(design: Design, ensemble: DesignEnsemble, withModels: boolean): DesignEnsemble {
  const { position, ...unit } = ensemble;
  const members = withModels ? unit.members : unit.members.map(withoutModel);
  const placedByDefault = position === ensemblePosition(design, unit);
  return placedByDefault ? { ...unit, members } : { ...unit, members, position };
}

/** A shared design pinned to someone's harness or model is broken on arrival, or spends the recipient's quota on it. */
function withoutModel<T extends { platform?: unknown; model?: unknown }>(config: T): Omit<T, 'platform' | 'model'> {
  const { platform: _platform, model: _model, ...rest } = config;
  return rest;
}

function nodesMissingPlatform(design: Design): string[] {
  return [
    ...design.nodes.filter((node) => node.kind === 'agent' && node.config.platform === undefined).map((node) => node.name),
    ...design.ensembles.flatMap((ensemble) =>
      ensemble.members.flatMap((member, index) => (member.platform === undefined ? [memberNodeName(ensemble.name, index)] : [])),
    ),
  ];
}

/** `name`, or `name (2)`, `name (3)`… whichever is first free. */
function freeName(name: string, taken: string[]): string {
  if (!taken.includes(name)) return name;
  let suffix = 2;
  while (taken.includes(`${name} (${suffix})`)) suffix++;
  return `${name} (${suffix})`;
}
