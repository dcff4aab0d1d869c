// Node runs: one record per execution of a node, holding its full input and output.
import type { HumanFeedback, NodeRun } from '../domain';
import { fromFlag, mapPresent, now, toFlag } from './columns';
import type { ExpressionBuilder } from 'kysely';
import type { Database, DatabaseOrTransaction, NodeRunRow, NodeRunRowUpdate } from './database';
import { inIdBatches, newId } from './ids';

/** Columns a run has beside its domain fields; neither leaves the store through NodeRun. */
export interface NodeRunKeys {
  /** Hash of the token the run's agent uses to report on itself. */
  run_token_hash?: string | null;
  /** The caller's unique name for one node execution, stable across retries of its activity. */
  run_key?: string | null;
}

/** What a run knows when it starts; the rest defaults (status running, attempt 1, empty output…). */
export type NewNodeRun = Pick<NodeRun, 'loop_id' | 'node_name' | 'kind' | 'round'> &
  Partial<Omit<NodeRun, 'id' | 'loop_id' | 'node_name' | 'kind' | 'round'>> &
  NodeRunKeys;

export type NodeRunChanges = Partial<Omit<NodeRun, 'id' | 'loop_id'>> & NodeRunKeys;

export interface NodeRunFilter {
  loopId: string;
  nodeId?: string;
  specId?: string;
  /** Default 20, at most 201. */
  limit?: number;
  /** Only runs older than this one, in the list's order (newest first): where the page before ended. */
  before?: Pick<NodeRun, 'id' | 'started_at'>;
}

const DEFAULT_LIST_LIMIT = 20;
/** A page of 200, and the one run past it that says whether another page follows. */
const MAX_LIST_LIMIT = 201;

export async function insertNodeRun(db: DatabaseOrTransaction, run: NewNodeRun): Promise<NodeRun> {
  const row = await db
    .insertInto('node_runs')
    .values({
      ...nodeRunChangesToRow(run),
      id: newId('nrun'),
      loop_id: run.loop_id,
      node_name: run.node_name,
      kind: run.kind,
      round: run.round,
      started_at: run.started_at ?? now(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return nodeRunFromRow(row);
}

export async function updateNodeRun(db: DatabaseOrTransaction, id: string, changes: NodeRunChanges): Promise<NodeRun | undefined> {
  const row = await db.updateTable('node_runs').set(nodeRunChangesToRow(changes)).where('id', '=', id).returningAll().executeTakeFirst();
  return row && nodeRunFromRow(row);
}

export async function getNodeRun(db: DatabaseOrTransaction, id: string): Promise<NodeRun | undefined> {
  const row = await db.selectFrom('node_runs').selectAll().where('id', '=', id).executeTakeFirst();
  return row && nodeRunFromRow(row);
}

/** Newest first. */
export async function listNodeRuns(db: DatabaseOrTransaction, filter: NodeRunFilter): Promise<NodeRun[]> {
  const limit = Math.min(Math.max(1, Math.trunc(filter.limit ?? DEFAULT_LIST_LIMIT)), MAX_LIST_LIMIT);
  let query = db
    .selectFrom('node_runs')
    .selectAll()
    .where('loop_id', '=', filter.loopId)
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit);
  if (filter.nodeId !== undefined) query = query.where('node_id', '=', filter.nodeId);
  if (filter.specId !== undefined) query = query.where('spec_id', '=', filter.specId);
  const before = filter.before;
  if (before !== undefined)
    query = query.where((eb) =>
      eb.or([eb('started_at', '<', before.started_at), eb.and([eb('started_at', '=', before.started_at), eb('id', '<', before.id)])]),
    );
  return (await query.execute()).map(nodeRunFromRow);
}

/**
 * The newest agent run of the same node in the same spec that started before `run` (by node name, which an
 * ensemble member's runs carry too): with `withSession`, the newest that recorded a CLI session.
 */
export async function latestEarlierRunOfNode(
  db: DatabaseOrTransaction,
  run: Pick<NodeRun, 'id' | 'loop_id' | 'spec_id' | 'node_name' | 'started_at'>,
  { withSession }: { withSession: boolean },
): Promise<NodeRun | undefined> {
  if (run.spec_id === null) return undefined;
  let query = db
    .selectFrom('node_runs')
    .selectAll()
    .where('loop_id', '=', run.loop_id)
    .where('spec_id', '=', run.spec_id)
    .where('node_name', '=', run.node_name)
    .where('kind', '=', 'agent')
    .where('id', '<>', run.id)
    .where('started_at', '<=', run.started_at)
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1);
  if (withSession) query = query.where('session_id', 'is not', null);
  const row = await query.executeTakeFirst();
  return row && nodeRunFromRow(row);
}

/** The tokens recorded by the other runs of a CLI session: what a CLI reporting the session's running total had used before. */
export async function sessionTokensElsewhere(
  db: DatabaseOrTransaction,
  sessionId: string,
  runId: string,
): Promise<{ input: number; cached: number; output: number }> {
  const row = await db
    .selectFrom('node_runs')
    .select((eb) => [
      eb.fn.sum<number | string | null>('input_tokens').as('input'),
      eb.fn.sum<number | string | null>('cached_input_tokens').as('cached'),
      eb.fn.sum<number | string | null>('output_tokens').as('output'),
    ])
    .where('session_id', '=', sessionId)
    .where('id', '<>', runId)
    .executeTakeFirstOrThrow();
  return { input: Number(row.input ?? 0), cached: Number(row.cached ?? 0), output: Number(row.output ?? 0) };
}

/** The loop's hook runs started at or after `since` (a loop run's start: its runs never overlap), oldest first. */
export async function listHookRunsSince(db: DatabaseOrTransaction, loopId: string, since: string): Promise<NodeRun[]> {
  const rows = await db
    .selectFrom('node_runs')
    .selectAll()
    .where('loop_id', '=', loopId)
    .where('kind', '=', 'hook')
    .where('started_at', '>=', since)
    .orderBy('started_at')
    .orderBy('id')
    .execute();
  return rows.map(nodeRunFromRow);
}

/** The record of the execution named `runKey`, left by an earlier try of its activity if any. */
export async function findNodeRunByKey(db: DatabaseOrTransaction, runKey: string): Promise<NodeRun | undefined> {
  const row = await db.selectFrom('node_runs').selectAll().where('run_key', '=', runKey).executeTakeFirst();
  return row && nodeRunFromRow(row);
}

/** The run a self-reporting agent's token belongs to. */
/** The loop's latest node run since `since` that recorded the workdir's dirty paths: the last look at the tree. */
export async function latestDirtyPathsRecord(db: DatabaseOrTransaction, loopId: string, since: string): Promise<NodeRun | undefined> {
  const row = await db
    .selectFrom('node_runs')
    .selectAll()
    .where('loop_id', '=', loopId)
    .where('started_at', '>=', since)
    .where('dirty_paths', 'is not', null)
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && nodeRunFromRow(row);
}

export async function getNodeRunByTokenHash(db: DatabaseOrTransaction, tokenHash: string): Promise<NodeRun | undefined> {
  const row = await db.selectFrom('node_runs').selectAll().where('run_token_hash', '=', tokenHash).executeTakeFirst();
  return row && nodeRunFromRow(row);
}

function nodeRunFromRow(row: NodeRunRow): NodeRun {
  return {
    id: row.id,
    loop_id: row.loop_id,
    spec_id: row.spec_id,
    node_id: row.node_id,
    node_name: row.node_name,
    kind: row.kind,
    workflow_id: row.workflow_id,
    round: row.round,
    attempt: row.attempt,
    infra_attempt: row.infra_attempt,
    activity_attempt: row.activity_attempt,
    status: row.status,
    outcome: row.outcome,
    failure_kind: row.failure_kind,
    reason: row.reason,
    input: row.input,
    stdout: row.stdout,
    stderr: row.stderr,
    exit_code: row.exit_code,
    reported_status: row.reported_status,
    reported_output: row.reported_output,
    unreported: fromFlag(row.unreported),
    head_before: row.head_before,
    head_after: row.head_after,
    pgid: row.pgid,
    stale: fromFlag(row.stale),
    executed_platform: row.executed_platform,
    executed_model: row.executed_model,
    input_tokens: row.input_tokens,
    cached_input_tokens: row.cached_input_tokens,
    output_tokens: row.output_tokens,
    cost_usd: row.cost_usd === null ? null : Number(row.cost_usd),
    executed_host: row.executed_host,
    started_at: row.started_at,
    ended_at: row.ended_at,
    attempts: JSON.parse(row.attempts) as NodeRun['attempts'],
    recovery: row.recovery,
    dirty_paths: mapPresent(row.dirty_paths, (paths) => JSON.parse(paths) as string[]),
    hook_event: row.hook_event,
    hook_index: row.hook_index,
    deadline: row.deadline,
    decided_by: row.decided_by,
    decided_at: row.decided_at,
    human_feedback: mapPresent(row.human_feedback, (remarks) => JSON.parse(remarks) as HumanFeedback[]),
    session_id: row.session_id,
    session_workdir: row.session_workdir,
    resumed: fromFlag(row.resumed),
    cold_start_reason: row.cold_start_reason,
  };
}

function nodeRunChangesToRow(changes: NodeRunChanges): NodeRunRowUpdate {
  return {
    spec_id: changes.spec_id,
    node_id: changes.node_id,
    node_name: changes.node_name,
    kind: changes.kind,
    workflow_id: changes.workflow_id,
    round: changes.round,
    attempt: changes.attempt,
    infra_attempt: changes.infra_attempt,
    activity_attempt: changes.activity_attempt,
    status: changes.status,
    outcome: changes.outcome,
    failure_kind: changes.failure_kind,
    reason: changes.reason,
    input: changes.input,
    stdout: changes.stdout,
    stderr: changes.stderr,
    exit_code: changes.exit_code,
    reported_status: changes.reported_status,
    reported_output: changes.reported_output,
    unreported: mapPresent(changes.unreported, toFlag),
    head_before: changes.head_before,
    head_after: changes.head_after,
    pgid: changes.pgid,
    stale: mapPresent(changes.stale, toFlag),
    started_at: changes.started_at,
    ended_at: changes.ended_at,
    run_token_hash: changes.run_token_hash,
    run_key: changes.run_key,
    attempts: mapPresent(changes.attempts, (attempts) => JSON.stringify(attempts)),
    executed_platform: changes.executed_platform,
    executed_model: changes.executed_model,
    input_tokens: changes.input_tokens,
    cached_input_tokens: changes.cached_input_tokens,
    output_tokens: changes.output_tokens,
    cost_usd: changes.cost_usd,
    recovery: changes.recovery,
    executed_host: changes.executed_host,
    dirty_paths: mapPresent(changes.dirty_paths, (paths) => JSON.stringify(paths)),
    hook_event: changes.hook_event,
    deadline: changes.deadline,
    decided_by: changes.decided_by,
    decided_at: changes.decided_at,
    human_feedback: mapPresent(changes.human_feedback, (remarks) => JSON.stringify(remarks)),
    hook_index: changes.hook_index,
    session_id: changes.session_id,
    session_workdir: changes.session_workdir,
    resumed: mapPresent(changes.resumed, toFlag),
    cold_start_reason: changes.cold_start_reason,
  };
}

/** Which of `ids` name node runs that have ended (any status but running). */
export async function endedNodeRunIds(db: DatabaseOrTransaction, ids: readonly string[]): Promise<string[]> {
  return inIdBatches(ids, async (batch) => {
    const rows = await db.selectFrom('node_runs').select('id').where('id', 'in', batch).where('status', '<>', 'running').execute();
    return rows.map((row) => row.id);
  });
}

/** The loop's node runs still running, oldest first: what a change to its specs would race with. */
export async function runningNodeRuns(db: DatabaseOrTransaction, loopId: string): Promise<Pick<NodeRun, 'id' | 'node_name'>[]> {
  return db
    .selectFrom('node_runs')
    .select(['id', 'node_name'])
    .where('loop_id', '=', loopId)
    .where('status', '=', 'running')
    .orderBy('started_at')
    .orderBy('id')
    .execute();
}

/** A node run still open: a process running, or an approval waiting for a person. */
const OPEN_NODE_RUN_STATUSES = ['running', 'waiting'] as const;

/**
 * Ends the loop's node runs still open (their attempts are dead, their approvals undecided); returns
 * the process groups they had recorded on `host` (and those of runs recorded before hosts): a process
 * group id means nothing on another machine, where killing it would hit an unrelated process.
 */

export async function endRunningNodeRuns(
  db: DatabaseOrTransaction,
  loopId: string,
  end: Required<Pick<NodeRunChanges, 'status' | 'failure_kind' | 'reason'>>,
  host: string,
): Promise<number[]> {
  const running = db.selectFrom('node_runs').where('loop_id', '=', loopId).where('status', 'in', OPEN_NODE_RUN_STATUSES);
  const groups = await running
    .select('pgid')
    .where('pgid', 'is not', null)
    .where((eb) => eb.or([eb('executed_host', '=', host), eb('executed_host', 'is', null)]))
    .execute();
  await db
    .updateTable('node_runs')
    .set({ ...nodeRunChangesToRow(end), outcome: end.status === 'fail' ? 'fail' : null, pgid: null, ended_at: now() })
    .where('loop_id', '=', loopId)
    .where('status', 'in', OPEN_NODE_RUN_STATUSES)
    .execute();
  return groups.map((row) => row.pgid!);
}

export interface AgentUsage {
  /** null for runs outside a spec (the completion hook). */
  spec_id: string | null;
  agent_runs: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

/** What a loop's agent runs used, per spec, over its whole history. */
export async function agentUsageBySpec(db: DatabaseOrTransaction, loopId: string): Promise<AgentUsage[]> {
  const rows = await db
    .selectFrom('node_runs')
    .select((eb) => ['spec_id', ...usageSums(eb)])
    .where('loop_id', '=', loopId)
    .where('executed_platform', 'is not', null)
    .groupBy('spec_id')
    .orderBy('spec_id')
    .execute();
  return rows.map((row) => ({ spec_id: row.spec_id, ...usageFromSums(row) }));
}

/** What each loop's agent runs used over its whole history, by loop id, in one query; a loop no agent ran for is absent. */
export async function agentUsageByLoop(db: DatabaseOrTransaction): Promise<Map<string, Omit<AgentUsage, 'spec_id'>>> {
  const rows = await db
    .selectFrom('node_runs')
    .select((eb) => ['loop_id', ...usageSums(eb)])
    .where('executed_platform', 'is not', null)
    .groupBy('loop_id')
    .execute();
  return new Map(rows.map((row) => [row.loop_id, usageFromSums(row)]));
}

const usageSums = (eb: ExpressionBuilder<Database, 'node_runs'>) =>
  [
    eb.fn.countAll().as('agent_runs'),
    eb.fn.coalesce(eb.fn.sum('input_tokens'), eb.lit(0)).as('input_tokens'),
    eb.fn.coalesce(eb.fn.sum('output_tokens'), eb.lit(0)).as('output_tokens'),
    eb.fn.coalesce(eb.fn.sum('cost_usd'), eb.lit(0)).as('cost_usd'),
  ] as const;

/** PostgreSQL returns counts and sums of integers as strings. */
const usageFromSums = (
  row: Record<'agent_runs' | 'input_tokens' | 'output_tokens' | 'cost_usd', unknown>,
): Omit<AgentUsage, 'spec_id'> => ({
  agent_runs: Number(row.agent_runs),
  input_tokens: Number(row.input_tokens),
  output_tokens: Number(row.output_tokens),
  cost_usd: Number(row.cost_usd),
});

/** Each loop's newest node run (newest as listNodeRuns orders them), by loop id, in one query whatever the number of loops. */
export async function latestNodeRunOfEachLoop(
  db: DatabaseOrTransaction,
): Promise<Map<string, Pick<NodeRun, 'loop_id' | 'node_name' | 'round' | 'status' | 'started_at' | 'ended_at'>>> {
  const rows = await db
    .selectFrom('node_runs')
    .select(['loop_id', 'node_name', 'round', 'status', 'started_at', 'ended_at'])
    // One look-up per loop down the (loop_id, started_at) index, rather than a pass over every run.
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('loops')
        .select((loops) =>
          loops
            .selectFrom('node_runs as newest')
            .select('newest.id')
            .whereRef('newest.loop_id', '=', 'loops.id')
            .orderBy('newest.started_at', 'desc')
            .orderBy('newest.id', 'desc')
            .limit(1)
            .as('id'),
        ),
    )
    .execute();
  return new Map(rows.map((row) => [row.loop_id, row]));
}

/** What agent runs have used: tokens, dollars, and how many runs reported tokens but no cost. */
export interface Spending {
  tokens: number;
  cost_usd: number;
  unpriced_runs: number;
}

/** Whose agent runs to add up: a loop's since a time (a loop run's start), or every one that worked on a spec. */
export type SpendingScope = { loopId: string; since: string } | { specId: string };

export async function spendingOf(db: DatabaseOrTransaction, scope: SpendingScope): Promise<Spending> {
  const row = await db
    .selectFrom('node_runs')
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum('input_tokens'), eb.lit(0)).as('input_tokens'),
      eb.fn.coalesce(eb.fn.sum('output_tokens'), eb.lit(0)).as('output_tokens'),
      eb.fn.coalesce(eb.fn.sum('cost_usd'), eb.lit(0)).as('cost_usd'),
      eb.fn
        .count('id')
        .filterWhere((where) =>
          where.and([
            where('cost_usd', 'is', null),
            where.or([where('input_tokens', 'is not', null), where('output_tokens', 'is not', null)]),
          ]),
        )
        .as('unpriced_runs'),
    ])
    .where((eb) =>
      'specId' in scope
        ? eb('spec_id', '=', scope.specId)
        : eb.and([eb('loop_id', '=', scope.loopId), eb('started_at', '>=', scope.since)]),
    )
    .where('executed_platform', 'is not', null)
    .executeTakeFirstOrThrow();
  // PostgreSQL returns counts and sums of integers as strings.
  return {
    tokens: Number(row.input_tokens) + Number(row.output_tokens),
    cost_usd: Number(row.cost_usd),
    unpriced_runs: Number(row.unpriced_runs),
  };
}

/** Ensemble members running now on `host`, by their node runs (a member's node is named `<ensemble>/member-<n>`). */
export async function runningMembersOn(db: DatabaseOrTransaction, host: string): Promise<number> {
  const row = await db
    .selectFrom('node_runs')
    .select((eb) => eb.fn.countAll().as('members'))
    .where('status', '=', 'running')
    .where('executed_host', '=', host)
    .where('node_name', 'like', '%/member-%')
    .executeTakeFirstOrThrow();
  return Number(row.members);
}

/**
 * Per loop, a mark that changes whenever one of its node runs starts, ends or is added: how many it
 * has and the newest start and end. The web app's live feed compares them to say which loops moved.
 */
export async function nodeRunMarks(db: DatabaseOrTransaction): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('node_runs')
    .select((eb) => ['loop_id', eb.fn.countAll().as('runs'), eb.fn.max('started_at').as('started'), eb.fn.max('ended_at').as('ended')])
    .groupBy('loop_id')
    .execute();
  return new Map(rows.map((row) => [row.loop_id, `${String(row.runs)}|${String(row.started)}|${String(row.ended)}`]));
}

/**
 * The output recorded so far of every node run still running (a tail of at most a few KB), by its id: the live feed
 * compares them to say whose output moved, which a length would miss once the tail is full.
 */
export async function runningOutputs(db: DatabaseOrTransaction): Promise<Map<string, string>> {
  const rows = await db.selectFrom('node_runs').select(['id', 'stdout']).where('status', '=', 'running').execute();
  return new Map(rows.map((row) => [row.id, row.stdout]));
}

/** One agent run's usage, for adding up by loop, spec and day. */
export interface AgentRunUsage {
  loop_id: string;
  spec_id: string | null;
  started_at: string;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

/** What every agent run of every loop used, oldest first. */
export async function agentRunUsages(db: DatabaseOrTransaction): Promise<AgentRunUsage[]> {
  const rows = await db
    .selectFrom('node_runs')
    .select(['loop_id', 'spec_id', 'started_at', 'input_tokens', 'output_tokens', 'cost_usd'])
    .where('executed_platform', 'is not', null)
    .orderBy('started_at')
    .execute();
  return rows.map((row) => ({
    loop_id: row.loop_id,
    spec_id: row.spec_id,
    started_at: String(row.started_at),
    input_tokens: Number(row.input_tokens ?? 0),
    output_tokens: Number(row.output_tokens ?? 0),
    cost_usd: Number(row.cost_usd ?? 0),
  }));
}
