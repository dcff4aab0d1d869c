// The picture of one loop that `loop watch` draws and `loop info` prints: its graph in reading
// order with each vertex's state and round, ensembles as one unit with a line per member, the
// spec running now and those to come, and the tail of the latest output. The running workflow's
// own view wins where Temporal answers; the store's record of the latest run fills in the rest.
import { type EnsembleKind, quorumMinPass } from '../domain/ensemble';
import { DEFAULT_MAX_ITERATIONS } from '../domain/loop';
import type { NodeRun } from '../domain/node-run';
import { memberLabel } from '../graph/ensemble-names';
import { roundOf } from '../graph/rounds';
import { designFromStored } from '../graph/stored-graph';
import { buildTopology, topologicalOrder, type VertexKind } from '../graph/topology';
import { getGraph } from '../store/graph-repository';
import { latestLoopRun } from '../store/loop-runs-repository';
import { listNodeRuns } from '../store/node-runs-repository';
import { listSpecs } from '../store/specs-repository';
import type { VertexState } from '../contract';
import type { ClientContext } from './context';
import { requireLoop } from './design-service';
import { redact } from '../graph/redact';
import { readLiveState, type LiveRead } from './runs-service';

const OUTPUT_TAIL_LINES = 8;
/** Enough node runs to cover a latest run of a large graph across a few rounds. */
const RECENT_RUNS = 200;

/** The workflow's states, and `waiting`: an approval node waiting for a person (its node run is open, waiting). */
export type PictureState = VertexState | 'waiting';

export interface MemberPicture {
  node: string;
  /** platform/model, as the quorum document names the member. */
  label: string;
  state: PictureState;
}

export interface VertexPicture {
  name: string;
  kind: VertexKind;
  state: PictureState;
  round: number;
  /** When the running execution started. */
  running_since: string | null;
  edges: { target: string; condition: string; loopback: boolean }[];
  ensemble: { kind: EnsembleKind; members: MemberPicture[]; min_pass: number } | null;
  /** The vertex's latest node run (an ensemble's: its quorum's), to open its output. */
  last_run_id: string | null;
}

export interface LoopPicture {
  loop_id: string;
  name: string;
  status: string;
  spec: { id: string; name: string } | null;
  upcoming_specs: string[];
  vertices: VertexPicture[];
  running: string | null;
  /** The newest output: of the node running now while it prints, else of the last node that ended. */
  output_tail: { node: string; running: boolean; lines: string[] } | null;
  live_unavailable: string | null;
  /** Why the open run is blocked (a no_progress or budget_exhausted blocker begins with its kind), redacted; null when it is not. */
  blocked: string | null;
}

/** `live` saves a second query when the caller has read the live state already. */
export async function loopPicture(ctx: ClientContext, loopId: string, known?: LiveRead): Promise<LoopPicture> {
  const loop = await requireLoop(ctx.db, loopId);
  const [graph, specs, lastRun, live] = await Promise.all([
    getGraph(ctx.db, loop.id),
    listSpecs(ctx.db, { loopId: loop.id }),
    latestLoopRun(ctx.db, loop.id),
    known ?? readLiveState(ctx, loop),
  ]);
  const topology = buildTopology(designFromStored(graph), loop.settings.max_iterations ?? DEFAULT_MAX_ITERATIONS);
  const runs = lastRun
    ? (await listNodeRuns(ctx.db, { loopId: loop.id, limit: RECENT_RUNS })).filter((r) => r.started_at >= lastRun.started_at)
    : [];
  const latest = latestRunByNode(runs);
  const memberNames = (ensembleId: string) =>
    graph.nodes
      .filter((node) => node.ensemble_id === ensembleId && node.member_index !== null)
      .sort((a, b) => a.member_index! - b.member_index!);

  const vertices = topologicalOrder(topology).map((vertex): VertexPicture => {
    const stored = graph.ensembles.find((e) => e.name === vertex.name);
    const quorum = stored && graph.nodes.find((node) => node.id === stored.quorum_node_id);
    const ownRun = latest.get(quorum ? quorum.name : vertex.name);
    const liveMembers = live.state?.memberStates;
    const members = stored
      ? memberNames(stored.id).map((node, i): MemberPicture => {
          const member = stored.members[i] ?? {};
          const run = latest.get(node.name);
          const liveState = liveEntry(liveMembers, node.name);
          // The workflow cannot see a queued member start; its node run opens when it does.
          const started = liveState === 'queued' && run?.status === 'running';
          return { node: node.name, label: memberLabel(member), state: started ? 'running' : (liveState ?? runState(run)) };
        })
      : [];
    const memberRunning = members.some((m) => m.state === 'running');
    // The workflow's own view has the approval it stands at `running`; the store says it waits for a person.
    const state: PictureState =
      ownRun?.status === 'waiting'
        ? 'waiting'
        : (liveEntry(live.state?.vertexStates, vertex.name) ?? (memberRunning ? 'running' : runState(ownRun)));
    const runningRun = stored
      ? memberNames(stored.id)
          .map((n) => latest.get(n.name))
          .find((r) => r?.status === 'running')
      : ownRun;
    return {
      name: vertex.name,
      kind: vertex.kind,
      state,
      round: live.state ? roundOf(topology, live.state.rounds, vertex.name) : (ownRun?.round ?? 1),
      running_since: state === 'running' && runningRun?.status === 'running' ? runningRun.started_at : null,
      edges: topology.edges
        .filter((step) => step.source === vertex.name)
        .map((step) => ({ target: step.target, condition: step.condition, loopback: step.type === 'loopback' })),
      ensemble: stored ? { kind: stored.kind ?? 'parallel', members, min_pass: quorumMinPass(stored) } : null,
      last_run_id: ownRun?.id ?? null,
    };
  });

  const currentSpecId = live.state?.specId ?? specs.find((spec) => spec.status === 'running')?.id ?? null;
  const current = specs.find((spec) => spec.id === currentSpecId);
  // A running node's record holds the newest lines of its output while it runs.
  const shown = runs.find((run) => run.status === 'running' && run.stdout) ?? runs.find((run) => run.status !== 'running');
  return {
    loop_id: loop.id,
    name: loop.name,
    status: live.state?.status ?? loop.status,
    spec: current ? { id: current.id, name: current.name } : null,
    upcoming_specs: specs.filter((spec) => spec.status === 'pending' && spec.id !== currentSpecId).map((spec) => spec.name),
    vertices,
    running: live.state?.vertex ?? vertices.find((v) => v.state === 'running')?.name ?? null,
    output_tail: shown
      ? {
          node: shown.node_name,
          running: shown.status === 'running',
          lines: tail(redact(shown.reported_output || shown.stdout || shown.stderr)),
        }
      : null,
    live_unavailable: live.unavailable,
    blocked: live.state?.blockedReason ? redact(live.state.blockedReason) : null,
  };
}

/** Newest first in, so the first run seen of a node is its latest. */
function latestRunByNode(runs: NodeRun[]): Map<string, NodeRun> {
  const latest = new Map<string, NodeRun>();
  for (const run of runs) if (!latest.has(run.node_name)) latest.set(run.node_name, run);
  return latest;
}

/**
 * A node's entry in the live state, which arrives as a plain object: a node it has no entry for
 * yet (before its spec's walk begins) would otherwise read what every object inherits under names
 * like `__proto__` or `constructor`.
 */
function liveEntry(states: Record<string, VertexState> | undefined, name: string): VertexState | undefined {
  return states && Object.hasOwn(states, name) ? states[name] : undefined;
}

function runState(run: NodeRun | undefined): VertexState {
  if (!run) return 'pending';
  if (run.stale) return 'stale';
  if (run.status === 'running') return 'running';
  return run.status === 'pass' ? 'pass' : 'fail';
}

function tail(text: string): string[] {
  return text.trimEnd().split('\n').slice(-OUTPUT_TAIL_LINES);
}
