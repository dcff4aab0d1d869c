// Node run history for diagnosis: newest first, full input and output on request, secrets redacted.
import { CanopyError, notFound } from '../domain/errors';
import type { NodeRun } from '../domain/node-run';
import { excerpt } from '../graph/feedback';
import { redact, redactFields } from '../graph/redact';
import { diffBetween, type CommitDiff } from '../git/commit-diff';
import { getNodeRun, listNodeRuns } from '../store/node-runs-repository';
import { onThisHost, type ClientContext } from './context';
import { requireLoop } from './design-service';
import { readLiveState } from './runs-service';

export const MAX_RUNS_LISTED = 200;
const DEFAULT_RUNS_LISTED = 20;

export interface NodeRunSummary {
  run_id: string;
  node_id: string | null;
  node: string;
  spec_id: string | null;
  round: number;
  status: NodeRun['status'];
  outcome: string | null;
  failure_kind: NodeRun['failure_kind'];
  reason: string | null;
  unreported: boolean;
  /** Which run of the node: n for the nth after infrastructure failures, as the Temporal UI numbers them. */
  infra_attempt: number;
  /** Temporal's attempt of the activity that recorded it: above 1 when a worker was lost mid-node. */
  activity_attempt: number;
  started_at: string;
  ended_at: string | null;
  excerpt: string;
  /** What git reported uncommitted in the workdir after an agent or check ([] when clean, null when not read). */
  dirty_paths: string[] | null;
  /** What ran an agent node and what it used, as its CLI reported; null for other kinds. */
  agent: AgentUsageLine | null;
}

export interface AgentUsageLine {
  platform: string;
  model: string | null;
  input_tokens: number | null;
  /** Of `input_tokens`, those the provider read from its prompt cache. */
  cached_input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  /** The CLI's session, which a later run of the node may continue. */
  session_id: string | null;
  /** It continued an earlier run's session. */
  resumed: boolean;
  /** Why it started cold although it was to resume. */
  cold_start_reason: string | null;
}

export function agentUsageOf(run: NodeRun): AgentUsageLine | null {
  if (!run.executed_platform) return null;
  return {
    platform: run.executed_platform,
    model: run.executed_model,
    input_tokens: run.input_tokens,
    cached_input_tokens: run.cached_input_tokens,
    output_tokens: run.output_tokens,
    cost_usd: run.cost_usd,
    session_id: run.session_id,
    resumed: run.resumed,
    cold_start_reason: run.cold_start_reason && redact(run.cold_start_reason),
  };
}

export interface RunListRequest {
  loop_id: string;
  node_id?: string;
  spec_id?: string;
  limit?: number;
  /** A run id: list the runs older than it (the `next_cursor` of the page before). */
  before?: string;
}

/** A page of a loop's node runs, newest first, and where the next one starts (null on the last page). */
export interface NodeRunPage {
  runs: NodeRunSummary[];
  next_cursor: string | null;
  /** Why the loop is blocked now (a no_progress or budget_exhausted blocker begins with its kind), redacted; null when it is not. */
  blocked: string | null;
}

export async function listRunPage(ctx: ClientContext, input: RunListRequest): Promise<NodeRunPage> {
  const loop = await requireLoop(ctx.db, input.loop_id);
  const limit = input.limit ?? DEFAULT_RUNS_LISTED;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RUNS_LISTED) {
    throw new CanopyError('invalid_input', `limit: must be a whole number from 1 to ${MAX_RUNS_LISTED}.`);
  }
  const before = input.before === undefined ? undefined : await cursorRun(ctx, input.loop_id, input.before);
  const filter = { loopId: input.loop_id, nodeId: input.node_id, specId: input.spec_id, before };
  // One run more than asked says whether another page follows.
  const runs = await listNodeRuns(ctx.db, { ...filter, limit: limit + 1 });
  const page = runs.slice(0, limit);
  return {
    runs: page.map(runSummary),
    next_cursor: runs.length > limit ? page[page.length - 1].id : null,
    blocked: await blockerOf(ctx, loop),
  };
}

/** The blocker of a blocked loop, as its run's live state says (asked of Temporal only then); null otherwise, or when Temporal did not answer. */
async function blockerOf(ctx: ClientContext, loop: Parameters<typeof readLiveState>[1]): Promise<string | null> {
  if (loop.status !== 'blocked') return null;
  const reason = (await readLiveState(ctx, loop)).state?.blockedReason;
  return reason ? redact(reason) : null;
}

/** The newest runs of a loop: the first page. */
export async function listRuns(ctx: ClientContext, input: Omit<RunListRequest, 'before'>): Promise<NodeRunSummary[]> {
  return (await listRunPage(ctx, input)).runs;
}

async function cursorRun(ctx: ClientContext, loopId: string, runId: string): Promise<NodeRun> {
  const run = await getNodeRun(ctx.db, runId);
  if (run?.loop_id !== loopId)
    throw new CanopyError(
      'invalid_input',
      `before: ${runId} is not a node run of loop ${loopId}; give the next_cursor of the page before.`,
    );
  return run;
}

function runSummary(run: NodeRun): NodeRunSummary {
  return {
    run_id: run.id,
    node_id: run.node_id,
    node: run.node_name,
    spec_id: run.spec_id,
    round: run.round,
    status: run.status,
    outcome: run.outcome,
    failure_kind: run.failure_kind,
    reason: run.reason && redact(run.reason),
    unreported: run.unreported,
    infra_attempt: run.infra_attempt,
    activity_attempt: run.activity_attempt,
    started_at: run.started_at,
    ended_at: run.ended_at,
    excerpt: excerpt(run.reported_output || run.stdout || run.stderr),
    dirty_paths: run.dirty_paths,
    agent: agentUsageOf(run),
  };
}

/** One run's full stored input and output, with its attempt numbers and the activity attempts before it. */
export async function getRun(ctx: ClientContext, runId: string): Promise<NodeRun> {
  const run = await getNodeRun(ctx.db, runId);
  if (!run) throw notFound('node run', runId, 'List runs with `canopy loop runs <loop_id>`.');
  return { ...redactFields(run), attempts: run.attempts.map(redactFields) };
}

/** What a node run changed: its HEAD before and after and the diff between them, and what it left uncommitted (paths only: the tree is not kept). */
export interface RunChanges {
  run_id: string;
  head_before: string | null;
  head_after: string | null;
  /** Null when HEAD did not move. */
  committed: CommitDiff | null;
  uncommitted_paths: string[] | null;
}

export async function runChanges(ctx: ClientContext, runId: string): Promise<RunChanges> {
  const run = await getRun(ctx, runId);
  const loop = await requireLoop(ctx.db, run.loop_id);
  const moved = run.head_before !== null && run.head_after !== null && run.head_before !== run.head_after;
  const committed = !moved
    ? null
    : onThisHost(ctx, loop.host)
      ? await diffBetween(loop.workdir, run.head_before!, run.head_after!)
      : { unavailable: `The workdir is on host ${loop.host}; open the web app served there to see this diff.` };
  return {
    run_id: run.id,
    head_before: run.head_before,
    head_after: run.head_after,
    committed: committed && 'patch' in committed ? { ...committed, patch: redact(committed.patch) } : committed,
    uncommitted_paths: run.dirty_paths,
  };
}
