// What `canopy tui` reads and does, through the same services as the CLI and MCP: the lists of the
// sidebar (the inbox among them), a loop's specs, edges and runs, its live picture, the actions on it,
// the edits of its graph, the config the loop editor edits, and the decisions of approvals. ESM views
// get this object and never import a service themselves.
import type { Blueprint } from '../../domain/blueprint';
import { CanopyError, type Issue } from '../../domain/errors';
import type { Loop } from '../../domain/loop';
import { decideApproval, listInbox, type DecideApprovalRequest, type InboxItem } from '../../client/approvals-service';
import type { ClientContext } from '../../client/context';
import { pendingAutoruns, scheduleAutorun } from '../../client/autorun-service';
import { listBlueprints } from '../../client/blueprints-service';
import { addEdge, addNode, removeEdge, removeEnsemble, removeNode, updateEnsemble, updateNode } from '../../client/graph-service';
import type { EdgeView, EnsembleView } from '../../client/graph-view-service';
import type { LoopPicture } from '../../client/loop-picture-service';
import { archiveLoop, getLoop, listLoops, restoreLoop, type LoopDetail } from '../../client/loops-service';
import { getRun, listRunPage, type NodeRunSummary } from '../../client/node-runs-service';
import { resetLoop } from '../../client/reset-service';
import { continueLoop, pauseLoop, startLoopRun, stopLoop } from '../../client/runs-service';
import { listSpecs } from '../../client/specs-service';
import { outputText } from '../../graph/feedback';
import type { StoredNode } from '../../graph/stored-graph';
import type { StoredSpec } from '../../store/specs-repository';
import { decidedText, defaultDecider } from '../text/approvals';
import { describeEdge, describeEnsemble, describeNode } from '../text/describe';
import { followLoop } from '../watch/follow';
import { edgeRequest, jsonObject, nodeRequest } from './graph-input';

export const RUNS_SHOWN = 20;

export interface SidebarLists {
  /** Every approval waiting for a person, oldest first, its message redacted. */
  inbox: InboxItem[];
  loops: Loop[];
  /** Standalone specs (bound to no loop), tagged with a workdir or not. */
  backlog: StoredSpec[];
  blueprints: Blueprint[];
}

export interface LoopDetails {
  specs: Pick<StoredSpec, 'id' | 'name' | 'status'>[];
  edges: EdgeView[];
  /** Newest first, `pages` pages of RUNS_SHOWN. */
  runs: NodeRunSummary[];
  /** Whether older runs are left to page to. */
  olderRuns: boolean;
}

export type LoopAction = 'run' | 'pause' | 'retry' | 'skip' | 'stop' | 'reset' | 'archive' | 'restore';

/** A decision of an approval, taken by the OS user (as the CLI's is unless told otherwise). */
export type Decision = Omit<DecideApprovalRequest, 'by'>;

/** A node's or an ensemble's config as the loop editor shows it, and how to store an edited text. */
export interface EditTarget {
  label: string;
  text: string;
  /** Stores the text when it is valid and returns no issues; else returns every issue and changes nothing. */
  save(text: string): Promise<Issue[]>;
}

export interface TuiActions {
  /** Where the person runs the app: its loops' project comes first. */
  cwd: string;
  readSidebar(): Promise<SidebarLists>;
  /** The loop's specs and edges, and its newest `pages` pages of runs. */
  loopDetails(loopId: string, pages: number): Promise<LoopDetails>;
  /** Loop id → when its pending autorun fires; empty when Temporal does not answer. */
  readAutoruns(): Promise<Record<string, string>>;
  follow(loopId: string, onPicture: (picture: LoopPicture) => void): { stop(): void; refresh(): void };
  runOutput(runId: string): Promise<string>;
  act(loopId: string, action: LoopAction): Promise<string>;
  autorunAt(loopId: string, at: string): Promise<string>;
  editTarget(loopId: string, vertex: string): Promise<EditTarget>;
  /** From a line in the syntax of graph-input's NODE_SYNTAX / EDGE_SYNTAX. */
  addNode(loopId: string, line: string): Promise<string>;
  addEdge(loopId: string, line: string): Promise<string>;
  /** A plain node with its edges, or an ensemble with its member nodes and wiring. */
  removeVertex(loopId: string, vertex: string): Promise<string>;
  removeEdge(edgeId: string): Promise<string>;
  /** Refused with the service's reason when the loop waits at no such approval, or a rejection has no comment. */
  decide(decision: Decision): Promise<string>;
}

/** Ensemble settings the editor offers: UpdateEnsembleRequest's fields but the ones that name it. */
const ENSEMBLE_FIELDS = [
  'prompt_template',
  'kind',
  'members',
  'min_pass',
  'straggler_timeout_minutes',
  'quorum_grace_minutes',
  'timeout_minutes',
  'idle_timeout_minutes',
  'isolation',
  'entry_from',
  'on_pass_to',
  'on_fail_to',
] as const;

/** The loop's newest `pages` pages of runs, each page from where the one before ended. */
async function newestRuns(ctx: ClientContext, loopId: string, pages: number): Promise<{ runs: NodeRunSummary[]; olderRuns: boolean }> {
  const runs: NodeRunSummary[] = [];
  let before: string | undefined;
  for (let page = 0; page < pages; page++) {
    const next = await listRunPage(ctx, { loop_id: loopId, limit: RUNS_SHOWN, before });
    runs.push(...next.runs);
    if (next.next_cursor === null) return { runs, olderRuns: false };
    before = next.next_cursor;
  }
  return { runs, olderRuns: true };
}

export function storeActions(ctx: ClientContext, cwd: string): TuiActions {
  const act = async (loopId: string, action: LoopAction): Promise<string> => {
    switch (action) {
      case 'run':
        return `started (${(await startLoopRun(ctx, loopId)).workflow_id})`;
      case 'pause':
        await pauseLoop(ctx, loopId);
        return 'pause requested: the loop stops after the running node';
      case 'retry':
      case 'skip':
        return `continued (${(await continueLoop(ctx, loopId, action)).resumed}, ${action})`;
      case 'stop':
        return `stopped (${(await stopLoop(ctx, loopId)).workflow})`;
      case 'reset':
        return `reset ${(await resetLoop(ctx, loopId)).specs_reset} spec(s)`;
      case 'archive':
        await archiveLoop(ctx, loopId);
        return 'archived';
      case 'restore':
        await restoreLoop(ctx, loopId);
        return 'restored';
    }
  };
  return {
    cwd,
    async readSidebar() {
      const [inbox, loops, backlog, blueprints] = await Promise.all([
        listInbox(ctx),
        listLoops(ctx, { include_archived: true }),
        listSpecs(ctx, { backlog: true }),
        listBlueprints(ctx),
      ]);
      return { inbox, loops, backlog, blueprints };
    },
    async loopDetails(loopId, pages) {
      const [loop, { runs, olderRuns }] = await Promise.all([getLoop(ctx, loopId), newestRuns(ctx, loopId, pages)]);
      return { specs: loop.specs.map(({ id, name, status }) => ({ id, name, status })), edges: loop.edges, runs, olderRuns };
    },
    readAutoruns: () => pendingAutoruns(ctx).catch(() => ({})),
    follow: (loopId, onPicture) => followLoop(ctx, loopId, onPicture, { untilEnd: false }),
    runOutput: async (runId) => outputText(await getRun(ctx, runId)),
    act,
    async autorunAt(loopId, at) {
      const state = await scheduleAutorun(ctx, loopId, at);
      return state.at ? `autorun at ${state.at}` : 'autorun cancelled';
    },
    async editTarget(loopId, vertex) {
      const { ensemble, node } = vertexOf(await getLoop(ctx, loopId), vertex);
      if (ensemble) {
        const settings = Object.fromEntries(ENSEMBLE_FIELDS.map((field) => [field, ensemble[field]]));
        return {
          label: `ensemble ${ensemble.name}`,
          text: formatted(settings),
          save: (text) => issuesOf(async () => updateEnsemble(ctx, { loop_id: loopId, name: ensemble.name, ...jsonObject(text) })),
        };
      }
      return {
        label: `node ${node.name}`,
        text: formatted(node.config),
        save: (text) => issuesOf(async () => updateNode(ctx, { loop_id: loopId, node_id: node.id, config: jsonObject(text) })),
      };
    },
    addNode: async (loopId, line) => `added ${describeNode(await addNode(ctx, { loop_id: loopId, ...nodeRequest(line) }))}`,
    addEdge: async (loopId, line) => `added ${describeEdge(await addEdge(ctx, { loop_id: loopId, ...edgeRequest(line) }))}`,
    async removeVertex(loopId, vertex) {
      const { ensemble, node } = vertexOf(await getLoop(ctx, loopId), vertex);
      if (ensemble) return `removed ${describeEnsemble(await removeEnsemble(ctx, { loop_id: loopId, name: vertex }))}`;
      return `removed ${describeNode(await removeNode(ctx, { loop_id: loopId, node_id: node.id }))} and its edges`;
    },
    removeEdge: async (edgeId) => `removed ${describeEdge(await removeEdge(ctx, { edge_id: edgeId }))}`,
    decide: async (decision) => decidedText(await decideApproval(ctx, { ...decision, by: defaultDecider() })),
  };
}

/** The ensemble named `vertex`, else the plain node. */
function vertexOf(loop: LoopDetail, vertex: string): { ensemble: EnsembleView; node?: never } | { ensemble?: never; node: StoredNode } {
  const ensemble = loop.ensembles.find((e) => e.name === vertex);
  if (ensemble) return { ensemble };
  const node = loop.nodes.find((n) => n.name === vertex && n.ensemble_id === null);
  if (!node) throw new CanopyError('not_found', `No node or ensemble named '${vertex}' in loop ${loop.id}.`);
  return { node };
}

function formatted(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** [] once `save` stored the text; the refusal's issues (or its message) when it refused. */
async function issuesOf(save: () => Promise<unknown>): Promise<Issue[]> {
  try {
    await save();
    return [];
  } catch (error) {
    if (!(error instanceof CanopyError)) throw error;
    return error.issues.length ? error.issues : [{ field: '(config)', message: error.message }];
  }
}
