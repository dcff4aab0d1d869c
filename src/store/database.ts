// The store's tables as Kysely types, and opening the store: SQLite at <home>/canopy.db, or
// PostgreSQL when given a postgres:// URL. Opening runs the migrations, so callers always see the
// latest schema.
import path from 'node:path';
import { Kysely, sql, type Generated, type Insertable, type Selectable, type Transaction, type Updateable } from 'kysely';
import type { EdgeType, FailureKind, HookEvent, LoopStatus, NodeKind, NodeRunStatus, SandboxStatus, SpecStatus } from '../domain';
import { postgresDialect, sqliteDialect } from './dialects';
import { migrateToLatest } from './migrations';

// Column conventions (see columns.ts): ids and timestamps (ISO-8601) are text, JSON is text,
// booleans are integer 0/1. `Generated` marks columns with a database default.

export interface LoopsTable {
  id: string;
  name: string;
  workdir: string;
  /** Host id of the machine the workdir is on; null for loops made before hosts. */
  host: string | null;
  description: string;
  status: Generated<LoopStatus>;
  settings: string;
  /** JSON LoopHooks. */
  hooks: Generated<string>;
  archived: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface NodesTable {
  id: string;
  loop_id: string;
  name: string;
  kind: NodeKind;
  position: number;
  config: string;
  ensemble_id: string | null;
  member_index: number | null;
}

export interface EdgesTable {
  id: string;
  loop_id: string;
  source_id: string;
  target_id: string;
  condition: string;
  type: EdgeType;
}

export interface EnsemblesTable {
  id: string;
  loop_id: string;
  name: string;
  prompt_template: string;
  members: string;
  min_pass: number | null;
  straggler_timeout_minutes: number | null;
  quorum_grace_minutes: number | null;
  timeout_minutes: number | null;
  idle_timeout_minutes: number | null;
  isolation: string | null;
  kind: string | null;
  position: number | null;
  quorum_node_id: string;
}

export interface SpecsTable {
  id: string;
  loop_id: string | null;
  name: string;
  content: string;
  status: Generated<SpecStatus>;
  workdir: string | null;
  position: number;
  summary: string | null;
  failure_count: Generated<number>;
  budget_usd: number | null;
  budget_tokens: number | null;
  created_at: string;
  updated_at: string;
}

export interface QueuesTable {
  id: string;
  name: string;
  created_at: string;
}

export interface QueueSpecsTable {
  queue_id: string;
  spec_id: string;
  position: number;
}

export interface BlueprintsTable {
  name: string;
  kind: NodeKind;
  config: string;
  builtin: Generated<number>;
}

export interface NodeRunsTable {
  id: string;
  loop_id: string;
  spec_id: string | null;
  node_id: string | null;
  node_name: string;
  kind: string;
  workflow_id: string | null;
  round: number;
  attempt: Generated<number>;
  infra_attempt: Generated<number>;
  activity_attempt: Generated<number>;
  status: Generated<NodeRunStatus>;
  outcome: string | null;
  failure_kind: FailureKind | null;
  reason: string | null;
  input: Generated<string>;
  stdout: Generated<string>;
  stderr: Generated<string>;
  exit_code: number | null;
  reported_status: 'pass' | 'fail' | null;
  reported_output: string | null;
  unreported: Generated<number>;
  head_before: string | null;
  head_after: string | null;
  pgid: number | null;
  stale: Generated<number>;
  started_at: string;
  ended_at: string | null;
  run_token_hash: string | null;
  run_key: string | null;
  /** JSON array of NodeRunAttempt. */
  attempts: Generated<string>;
  executed_platform: string | null;
  executed_model: string | null;
  input_tokens: number | null;
  cached_input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  recovery: string | null;
  executed_host: string | null;
  /** JSON array of paths, or null when not read (not a repository, not a node that works in the tree). */
  dirty_paths: string | null;
  hook_event: HookEvent | null;
  hook_index: number | null;
  deadline: string | null;
  decided_by: string | null;
  decided_at: string | null;
  /** JSON array of HumanFeedback: the remarks a person sent the loop that this run received; null when none. */
  human_feedback: string | null;
  session_id: string | null;
  session_workdir: string | null;
  resumed: Generated<number>;
  cold_start_reason: string | null;
}

export interface LoopRunsTable {
  id: string;
  loop_id: string;
  workflow_id: string;
  queue_id: string | null;
  status: Generated<string>;
  failing_node: string | null;
  failure_kind: FailureKind | null;
  failure_reason: string | null;
  resume: string | null;
  started_at: string;
  ended_at: string | null;
  hook_fired: Generated<number>;
}

export interface LoopSchedulesTable {
  loop_id: string;
  cron: string | null;
  every: string | null;
  timezone: string;
  queue_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface SandboxesTable {
  id: string;
  loop_id: string;
  loop_run_id: string;
  branch: string;
  path: string;
  base_head: string;
  host: string | null;
  status: Generated<SandboxStatus>;
  landed_commit: string | null;
  created_at: string;
  updated_at: string;
}

export interface WorkdirClaimsTable {
  /** The host id of the loop whose run holds the workdir; '' for a loop any worker runs. */
  host: string;
  /** The workdir's real path. */
  workdir: string;
  loop_id: string;
  loop_run_id: string;
  claimed_at: string;
}

/** A message to one receiver about one event: made when the event happens, then delivered by a workflow of its own. */
export interface NotificationsTable {
  id: string;
  /** The event's occurrence (the activity that recorded it): with `receiver`, unique, so a retried activity makes no second message. */
  occurrence: string;
  /** Where the receiver is listed: `config.<index>` (config.json) or `loop.<index>` (the loop's settings). */
  receiver: string;
  loop_id: string;
  event: string;
  /** The receiver's full URL: it stays in the store, and is shown everywhere else with its secret parts hidden. */
  url: string;
  format: string;
  /** JSON of the Notification, its texts redacted. */
  message: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  /** The last failed attempt's error; null while none failed. */
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface Database {
  loops: LoopsTable;
  nodes: NodesTable;
  edges: EdgesTable;
  ensembles: EnsemblesTable;
  specs: SpecsTable;
  queues: QueuesTable;
  queue_specs: QueueSpecsTable;
  blueprints: BlueprintsTable;
  node_runs: NodeRunsTable;
  loop_runs: LoopRunsTable;
  loop_schedules: LoopSchedulesTable;
  sandboxes: SandboxesTable;
  workdir_claims: WorkdirClaimsTable;
  notifications: NotificationsTable;
}

export type LoopRow = Selectable<LoopsTable>;
export type NewLoopRow = Insertable<LoopsTable>;
export type LoopRowUpdate = Updateable<LoopsTable>;
export type NodeRow = Selectable<NodesTable>;
export type NewNodeRow = Insertable<NodesTable>;
export type NodeRowUpdate = Updateable<NodesTable>;
export type EdgeRow = Selectable<EdgesTable>;
export type NewEdgeRow = Insertable<EdgesTable>;
export type EdgeRowUpdate = Updateable<EdgesTable>;
export type EnsembleRow = Selectable<EnsemblesTable>;
export type NewEnsembleRow = Insertable<EnsemblesTable>;
export type EnsembleRowUpdate = Updateable<EnsemblesTable>;
export type SpecRow = Selectable<SpecsTable>;
export type NewSpecRow = Insertable<SpecsTable>;
export type SpecRowUpdate = Updateable<SpecsTable>;
export type QueueRow = Selectable<QueuesTable>;
export type NewQueueRow = Insertable<QueuesTable>;
export type QueueRowUpdate = Updateable<QueuesTable>;
export type QueueSpecRow = Selectable<QueueSpecsTable>;
export type NewQueueSpecRow = Insertable<QueueSpecsTable>;
export type QueueSpecRowUpdate = Updateable<QueueSpecsTable>;
export type BlueprintRow = Selectable<BlueprintsTable>;
export type NewBlueprintRow = Insertable<BlueprintsTable>;
export type BlueprintRowUpdate = Updateable<BlueprintsTable>;
export type NodeRunRow = Selectable<NodeRunsTable>;
export type NewNodeRunRow = Insertable<NodeRunsTable>;
export type NodeRunRowUpdate = Updateable<NodeRunsTable>;
export type LoopRunRow = Selectable<LoopRunsTable>;
export type NewLoopRunRow = Insertable<LoopRunsTable>;
export type LoopRunRowUpdate = Updateable<LoopRunsTable>;
export type SandboxRow = Selectable<SandboxesTable>;

/** What every repository function takes first, so it can run inside a caller's transaction. */
export type DatabaseOrTransaction = Kysely<Database> | Transaction<Database>;

export interface StoreOptions {
  /** A postgres:// or postgresql:// URL selects PostgreSQL; anything else selects SQLite. */
  url?: string;
  /** The canopy home directory, where the SQLite file lives. */
  home: string;
}

const SQLITE_FILE_NAME = 'canopy.db';

export async function openDatabase(options: StoreOptions): Promise<Kysely<Database>> {
  const postgresUrl = postgresUrlOf(options);
  const db = new Kysely<Database>({ dialect: postgresUrl ? postgresDialect(postgresUrl) : sqliteDialect(sqlitePath(options.home)) });
  try {
    await migrateToLatest(db, postgresUrl ? await currentPostgresSchema(db) : undefined);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

/** Where the store lives, for people (`canopy doctor`): the SQLite file, or the URL without its password. */
export function storeLocation(options: StoreOptions): string {
  const postgresUrl = postgresUrlOf(options);
  if (!postgresUrl) return sqlitePath(options.home);
  const url = new URL(postgresUrl);
  if (url.password) url.password = '***';
  return url.toString();
}

/** Runs `work` in a transaction, joining the caller's when `db` already is one. */
export async function inTransaction<T>(db: DatabaseOrTransaction, work: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Transaction<Database>) : db.transaction().execute(work);
}

/** The URL when it selects PostgreSQL, else undefined (SQLite). */
function postgresUrlOf({ url }: StoreOptions): string | undefined {
  return url && /^postgres(ql)?:\/\//.test(url) ? url : undefined;
}

function sqlitePath(home: string): string {
  return path.join(home, SQLITE_FILE_NAME);
}

async function currentPostgresSchema(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0].schema;
}
