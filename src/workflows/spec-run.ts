// One spec's run, the seed's walk of the graph read top-down: start at the entry node (or where a
// failed run left off), run each node, take the edge its outcome matches, count a round for every
// loopback into a head (its body goes stale), and end when no edge matches: completed after a pass,
// failed after a fail, or failed with iteration_limit when a round would pass the head's budget.
import { patched, workflowInfo } from '@temporalio/workflow';
import type { NodeOutcome, OpenedSpec, ResumePoint, RunContext } from '../contract';
import { enterLoopback, type Rounds, roundOf } from '../graph/rounds';
import { entryVertex, stepAfter } from '../graph/topology';
import { checkpoint } from './checkpoint';
import { dispatchNode } from './node-dispatch';
import { continueRunAsNew, type LoopRun, type SpecWalk } from './run-state';
import { PATCHES } from './patches';
import { noteFailure, watchRoundEnd } from './stall-watch';

export interface FailedSpec {
  status: 'failed';
  vertex: string;
  outcome: Pick<NodeOutcome, 'failureKind' | 'reason'>;
  /** Where a continue picks up; null when the failure left nothing to resume (the run could not go on at all). */
  resume: ResumePoint | null;
}

export type SpecResult = { status: 'completed' } | { status: 'skipped' } | FailedSpec;

export async function runSpec(run: LoopRun, spec: OpenedSpec, from: ResumePoint | null): Promise<SpecResult> {
  const walk = await openWalk(run, spec, from);
  if (!walk) return { status: 'skipped' };
  let vertex = from?.vertex ?? entryVertex(walk.graph.topology);
  if (!vertex)
    return failSpec(walk, '(graph)', { failureKind: null, reason: 'The loop has no nodes to run; add nodes with loop_add_node.' });
  for (;;) {
    const outcome = await outcomeAt(run, walk, vertex);
    // A blocker lifted with retry: the node runs again.
    if (!outcome) continue;
    const next = await follow(run, walk, vertex, outcome);
    if (typeof next !== 'string') return next;
    vertex = next;
  }
}

/**
 * The spec's graph and starting tree, as its claim read them unless a refused start blocked the
 * loop (the graph may have changed since); null when a person skipped the spec while a failed
 * run's leftovers held it.
 */
async function openWalk(run: LoopRun, spec: OpenedSpec, from: ResumePoint | null): Promise<SpecWalk | null> {
  const { specId } = spec;
  const refused = spec.start?.refusal ?? null;
  const opened = spec.start && !refused ? { specStartHead: spec.start.head, specStartDirty: spec.start.dirtyPaths } : null;
  const start = from ?? opened ?? (await startingTree(run, specId, refused));
  if (!start) return null;
  const graph =
    spec.graph && !refused ? spec.graph : await run.activities.bookkeeping('read the graph').loadTopology({ loopId: run.loopId, specId });
  const { loopId, loopRunId, workflowId, live } = run;
  const context: RunContext = {
    loopId,
    loopRunId,
    workflowId,
    specId,
    specStartHead: start.specStartHead,
    specCommittedHead: from?.specCommittedHead ?? '',
    specStartDirty: start.specStartDirty,
    ...run.sandboxWorkdir,
  };
  const rounds = from?.rounds ?? {};
  live.rounds = rounds;
  live.vertexStates = Object.fromEntries(graph.topology.vertices.map((vertex) => [vertex.name, 'pending' as const]));
  const previousRunId = from?.previousRunId ?? null;
  const retriedAt = from?.strategy === 'retry' ? from.vertex : null;
  const turns = { ...from?.turns };
  const stalls = from?.stalls ?? {};
  const skipNext = from?.strategy === 'skip';
  return { specId, graph, context, rounds, stalls, lastFailure: null, previousRunId, skipNext, visits: new Map(), retriedAt, turns };
}

/**
 * HEAD and the uncommitted paths a fresh spec starts on, once the start is not refused (`refused`:
 * the refusal the claim already met); null when a person skipped the spec while a failed run's
 * leftovers held it.
 */
async function startingTree(
  run: LoopRun,
  specId: string,
  refused: string | null,
): Promise<Pick<ResumePoint, 'specStartHead' | 'specStartDirty'> | null> {
  const { loopId, loopRunId, workdir } = run;
  let refusal = refused;
  for (;;) {
    if (refusal) {
      run.live.blockedReason = refusal;
      if ((await checkpoint(run, null)) === 'skip') return null;
    }
    const start = await run.activities
      .workdirReads('the workdir at the start of the spec')
      .inspectSpecStart({ loopId, loopRunId, specId, workdir });
    if (!start.refusal) return { specStartHead: start.head, specStartDirty: start.dirtyPaths };
    refusal = start.refusal;
  }
}

/** Runs the node at `vertex`, or takes it as passed when a continue skipped it; null when a lifted blocker asks to run it again. */
async function outcomeAt(run: LoopRun, walk: SpecWalk, vertex: string): Promise<NodeOutcome | null> {
  run.live.vertex = vertex;
  run.live.vertexStates[vertex] = 'running';
  if (walk.skipNext) {
    walk.skipNext = false;
    return skipped(walk.previousRunId);
  }
  if (walk.graph.budgeted && patched(PATCHES.loopBudgets) && (await holdForBudget(run, walk.specId, vertex)) === 'skip')
    return skipped(walk.previousRunId);
  const outcome = await dispatchNode(run, walk, vertex, roundOf(walk.graph.topology, walk.rounds, vertex));
  run.live.vertexStates[vertex] = outcome.outcome === 'fail' ? 'fail' : 'pass';
  const lifted = await checkpoint(run, vertex);
  if (lifted === 'retry') return null;
  return lifted === 'skip' ? skipped(outcome.nodeRunId) : outcome;
}

/** Holds `vertex` while the run's or the spec's budget is used up: the loop blocks until a continue, after which it asks again (a skip skips the node). */
async function holdForBudget(run: LoopRun, specId: string, vertex: string): Promise<'go' | 'skip'> {
  for (;;) {
    const exhausted = await run.activities
      .bookkeeping(`the budget before ${vertex}`)
      .checkBudget({ loopId: run.loopId, loopRunId: run.loopRunId, specId, node: vertex });
    if (exhausted === null) return 'go';
    run.live.blockedReason = exhausted;
    if ((await checkpoint(run, vertex)) === 'skip') return 'skip';
  }
}

/**
 * Takes the edge the outcome matches (an agent or check that failed for infrastructure reasons takes
 * its error edge): the next vertex, or the spec's end when none matches or a loop's budget ran out.
 */
async function follow(run: LoopRun, walk: SpecWalk, vertex: string, outcome: NodeOutcome): Promise<string | SpecResult> {
  run.live.vertexStates[vertex] = outcome.outcome === 'fail' ? 'fail' : 'pass';
  if (outcome.committedHead) walk.context.specCommittedHead = outcome.committedHead;
  walk.previousRunId = outcome.nodeRunId;
  noteFailure(walk, vertex, outcome);
  const step = stepAfter(walk.graph.topology, vertex, outcome);
  if (!step) return outcome.outcome === 'fail' ? failSpec(walk, vertex, outcome) : { status: 'completed' };
  if (step.type === 'loopback') {
    const exhausted = await enterRound(run, walk, step.target);
    if (exhausted) return exhausted;
  }
  return step.target;
}

/**
 * A loopback into `head` starts its next round and makes its body stale; past the head's budget the
 * spec fails, and a watched loop whose rounds repeat blocks first (see stall-watch).
 */
async function enterRound(run: LoopRun, walk: SpecWalk, head: string): Promise<FailedSpec | null> {
  const entered = enterLoopback(walk.graph.topology, walk.rounds, head);
  if (entered.kind === 'exhausted') {
    // A continue gives the exhausted loop a fresh budget.
    const freshBudget = { ...walk.rounds };
    delete freshBudget[entered.head];
    return failSpec(walk, entered.head, { failureKind: 'iteration_limit', reason: entered.reason }, freshBudget);
  }
  await watchRoundEnd(run, walk, head);
  walk.rounds = entered.rounds;
  run.live.rounds = entered.rounds;
  for (const stale of entered.stale) run.live.vertexStates[stale] = 'stale';
  // A long fix loop outgrows its history inside one spec: start the new round in a fresh run
  // that resumes the spec here (the topology is read again there, as on any resume).
  if (workflowInfo().continueAsNewSuggested) await continueRunAsNew(run, resumeAt(walk, head));
  return null;
}

function resumeAt(walk: SpecWalk, vertex: string, rounds: Rounds = walk.rounds): ResumePoint {
  const { specStartHead, specCommittedHead, specStartDirty } = walk.context;
  const { specId, previousRunId, turns, stalls } = walk;
  const point: ResumePoint = { specId, vertex, rounds, strategy: 'retry', specStartHead, specCommittedHead, specStartDirty, previousRunId };
  return { ...point, ...(Object.keys(turns).length > 0 && { turns }), ...(Object.keys(stalls).length > 0 && { stalls }) };
}

function failSpec(walk: SpecWalk, at: string, outcome: FailedSpec['outcome'], rounds?: Rounds): FailedSpec {
  return { status: 'failed', vertex: at, outcome, resume: resumeAt(walk, at, rounds) };
}

function skipped(nodeRunId: string | null): NodeOutcome {
  return {
    nodeRunId: nodeRunId ?? '',
    outcome: 'pass',
    failureKind: null,
    reason: 'skipped by loop_continue',
    excerpt: '',
    committedHead: null,
  };
}
