// The store's schema history. Each migration is frozen once released: change the schema by adding
// the next numbered one, never by editing an old one. They live in code, so a bundled build needs
// no migration folder. Column types are the portable subset SQLite and PostgreSQL share.
import { DEFAULT_MIGRATION_TABLE, Migrator, sql, type Kysely, type Migration } from 'kysely';
import { hasCause } from '../domain/errors';

// Migrations see `Kysely<any>`: they describe the schema as it was then, not the current types.
/* eslint-disable @typescript-eslint/no-explicit-any */
const initial: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('loops')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('workdir', 'text', (col) => col.notNull())
      .addColumn('description', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull().defaultTo('pending'))
      .addColumn('settings', 'text', (col) => col.notNull())
      .addColumn('on_completed', 'text')
      .addColumn('archived', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addUniqueConstraint('loops_workdir_name_unique', ['workdir', 'name'])
      .execute();

    // Created before nodes: member and quorum nodes reference their ensemble.
    await db.schema
      .createTable('ensembles')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('loop_id', 'text', (col) => col.notNull().references('loops.id').onDelete('cascade'))
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('prompt_template', 'text', (col) => col.notNull())
      .addColumn('members', 'text', (col) => col.notNull())
      .addColumn('min_pass', 'integer')
      .addColumn('straggler_timeout_minutes', 'double precision')
      .addColumn('timeout_minutes', 'double precision')
      .addColumn('position', 'double precision')
      .addColumn('quorum_node_id', 'text', (col) => col.notNull())
      .addUniqueConstraint('ensembles_loop_id_name_unique', ['loop_id', 'name'])
      .execute();

    await db.schema
      .createTable('nodes')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('loop_id', 'text', (col) => col.notNull().references('loops.id').onDelete('cascade'))
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('kind', 'text', (col) => col.notNull())
      .addColumn('position', 'double precision', (col) => col.notNull())
      .addColumn('config', 'text', (col) => col.notNull())
      .addColumn('ensemble_id', 'text', (col) => col.references('ensembles.id').onDelete('cascade'))
      .addColumn('member_index', 'integer')
      .addUniqueConstraint('nodes_loop_id_name_unique', ['loop_id', 'name'])
      .execute();

    await db.schema
      .createTable('edges')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('loop_id', 'text', (col) => col.notNull().references('loops.id').onDelete('cascade'))
      .addColumn('source_id', 'text', (col) => col.notNull().references('nodes.id').onDelete('cascade'))
      .addColumn('target_id', 'text', (col) => col.notNull().references('nodes.id').onDelete('cascade'))
      .addColumn('condition', 'text', (col) => col.notNull())
      .addColumn('type', 'text', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('edges_loop_id_index').on('edges').column('loop_id').execute();

    await db.schema
      .createTable('specs')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('loop_id', 'text', (col) => col.references('loops.id').onDelete('set null'))
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('content', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull().defaultTo('pending'))
      .addColumn('workdir', 'text')
      .addColumn('position', 'double precision', (col) => col.notNull())
      .addColumn('summary', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('specs_loop_id_position_index').on('specs').columns(['loop_id', 'position']).execute();

    await db.schema
      .createTable('queues')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('name', 'text', (col) => col.notNull().unique())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .execute();

    await db.schema
      .createTable('queue_specs')
      .addColumn('queue_id', 'text', (col) => col.notNull().references('queues.id').onDelete('cascade'))
      .addColumn('spec_id', 'text', (col) => col.notNull().references('specs.id').onDelete('cascade'))
      .addColumn('position', 'integer', (col) => col.notNull())
      .addPrimaryKeyConstraint('queue_specs_pk', ['queue_id', 'spec_id'])
      .execute();

    await db.schema
      .createTable('blueprints')
      .addColumn('name', 'text', (col) => col.primaryKey())
      .addColumn('kind', 'text', (col) => col.notNull())
      .addColumn('config', 'text', (col) => col.notNull())
      .addColumn('builtin', 'integer', (col) => col.notNull().defaultTo(0))
      .execute();

    // A run's history outlives its node and spec (node_name is kept on the run), not its loop.
    await db.schema
      .createTable('node_runs')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('loop_id', 'text', (col) => col.notNull().references('loops.id').onDelete('cascade'))
      .addColumn('spec_id', 'text', (col) => col.references('specs.id').onDelete('set null'))
      .addColumn('node_id', 'text', (col) => col.references('nodes.id').onDelete('set null'))
      .addColumn('node_name', 'text', (col) => col.notNull())
      .addColumn('kind', 'text', (col) => col.notNull())
      .addColumn('workflow_id', 'text')
      .addColumn('round', 'integer', (col) => col.notNull())
      .addColumn('attempt', 'integer', (col) => col.notNull().defaultTo(1))
      .addColumn('infra_attempt', 'integer', (col) => col.notNull().defaultTo(1))
      .addColumn('status', 'text', (col) => col.notNull().defaultTo('running'))
      .addColumn('outcome', 'text')
      .addColumn('failure_kind', 'text')
      .addColumn('reason', 'text')
      .addColumn('input', 'text', (col) => col.notNull().defaultTo(''))
      .addColumn('stdout', 'text', (col) => col.notNull().defaultTo(''))
      .addColumn('stderr', 'text', (col) => col.notNull().defaultTo(''))
      .addColumn('exit_code', 'integer')
      .addColumn('reported_status', 'text')
      .addColumn('reported_output', 'text')
      .addColumn('unreported', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('head_before', 'text')
      .addColumn('head_after', 'text')
      .addColumn('pgid', 'integer')
      .addColumn('stale', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('started_at', 'text', (col) => col.notNull())
      .addColumn('ended_at', 'text')
      .addColumn('run_token_hash', 'text')
      .addColumn('run_key', 'text')
      .execute();
    await db.schema.createIndex('node_runs_loop_id_started_at_index').on('node_runs').columns(['loop_id', 'started_at']).execute();
    await db.schema.createIndex('node_runs_node_id_index').on('node_runs').column('node_id').execute();
    await db.schema.createIndex('node_runs_run_token_hash_index').on('node_runs').column('run_token_hash').execute();
    // One record per node execution, however often its activity is retried.
    await db.schema.createIndex('node_runs_run_key_unique').on('node_runs').column('run_key').unique().execute();

    await db.schema
      .createTable('loop_runs')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('loop_id', 'text', (col) => col.notNull().references('loops.id').onDelete('cascade'))
      .addColumn('workflow_id', 'text', (col) => col.notNull())
      .addColumn('queue_id', 'text', (col) => col.references('queues.id').onDelete('set null'))
      .addColumn('status', 'text', (col) => col.notNull().defaultTo('running'))
      .addColumn('failing_node', 'text')
      .addColumn('failure_kind', 'text')
      .addColumn('failure_reason', 'text')
      .addColumn('resume', 'text')
      .addColumn('started_at', 'text', (col) => col.notNull())
      .addColumn('ended_at', 'text')
      .addColumn('hook_fired', 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('loop_runs_loop_id_started_at_index').on('loop_runs').columns(['loop_id', 'started_at']).execute();
  },
};

/** Earlier infra attempts of a node run, as JSON, so a retry starts from a clean record. */
const nodeRunAttempts: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .alterTable('node_runs')
      .addColumn('attempts', 'text', (col) => col.notNull().defaultTo('[]'))
      .execute();
  },
};

/** What ran an agent node and what it used: platform, model, tokens and cost as the CLI reported them. */
const agentUsage: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    for (const [column, type] of [
      ['executed_platform', 'text'],
      ['executed_model', 'text'],
      ['input_tokens', 'integer'],
      ['output_tokens', 'integer'],
      ['cost_usd', 'double precision'],
    ] as const) {
      await db.schema.alterTable('node_runs').addColumn(column, type).execute();
    }
  },
};

/** The machine a loop's workdir is on, and the one whose worker executed each node run. */
const loopHosts: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('loops').addColumn('host', 'text').execute();
    await db.schema.alterTable('node_runs').addColumn('executed_host', 'text').execute();
  },
};

/** How a retry after a lost worker recovered a node run: adopted its process, or ran it again and why. */
const nodeRunRecovery: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('node_runs').addColumn('recovery', 'text').execute();
  },
};

/** Loops that run on a recurring Temporal Schedule, so reads know of it without asking Temporal. */
const loopSchedules: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('loop_schedules')
      .addColumn('loop_id', 'text', (col) => col.primaryKey().references('loops.id').onDelete('cascade'))
      .addColumn('cron', 'text')
      .addColumn('every', 'text')
      .addColumn('timezone', 'text', (col) => col.notNull())
      .addColumn('queue_id', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .execute();
  },
};

/** How long an ensemble's other members may still finish once its quorum is met. */
const ensembleQuorumGrace: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('ensembles').addColumn('quorum_grace_minutes', 'double precision').execute();
  },
};

/** How many runs each spec failed in, which the loop's spec_attempt_limit caps. */
const specFailureCounts: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .alterTable('specs')
      .addColumn('failure_count', 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
  },
};

/** Which paths git reported changed or untracked in the workdir after each agent or check node (JSON). */
const nodeRunDirtyPaths: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('node_runs').addColumn('dirty_paths', 'text').execute();
  },
};

/**
 * Lists of hooks per event in one JSON column, the single on_completed hook becoming the first of
 * its list; and, on each node run of a hook, the event and list index it ran for.
 */
const loopHooks: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .alterTable('loops')
      .addColumn('hooks', 'text', (col) => col.notNull().defaultTo('{}'))
      .execute();
    const hooked = await db.selectFrom('loops').select(['id', 'on_completed']).where('on_completed', 'is not', null).execute();
    for (const { id, on_completed } of hooked as { id: string; on_completed: string }[]) {
      const hooks = JSON.stringify({ on_completed: [JSON.parse(on_completed)] });
      await db.updateTable('loops').set({ hooks }).where('id', '=', id).execute();
    }
    await db.schema.alterTable('loops').dropColumn('on_completed').execute();
    await db.schema.alterTable('node_runs').addColumn('hook_event', 'text').execute();
    await db.schema.alterTable('node_runs').addColumn('hook_index', 'integer').execute();
  },
};

/** Runs that work in a git worktree of their loop's workdir, on a branch of their own, until landed or discarded. */
const sandboxes: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('sandboxes')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('loop_id', 'text', (col) => col.notNull().references('loops.id').onDelete('cascade'))
      .addColumn('loop_run_id', 'text', (col) => col.notNull().unique())
      .addColumn('branch', 'text', (col) => col.notNull())
      .addColumn('path', 'text', (col) => col.notNull())
      .addColumn('base_head', 'text', (col) => col.notNull())
      .addColumn('host', 'text')
      .addColumn('status', 'text', (col) => col.notNull().defaultTo('active'))
      .addColumn('landed_commit', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('sandboxes_loop_id_index').on('sandboxes').column('loop_id').execute();
  },
};

/**
 * A node run counts two kinds of attempt apart: `infra_attempt` becomes which run of the node it is
 * after infrastructure failures (each a record of its own, its run key ending `:infra-<n>` from the
 * second), and `activity_attempt` takes Temporal's attempt of its activity, which `infra_attempt` held.
 */
const nodeRunActivityAttempts: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .alterTable('node_runs')
      .addColumn('activity_attempt', 'integer', (col) => col.notNull().defaultTo(1))
      .execute();
    await db
      .updateTable('node_runs')
      .set({ activity_attempt: sql`infra_attempt`, infra_attempt: 1 })
      .where('infra_attempt', '<>', 1)
      .execute();
    const retried = await db
      .selectFrom('node_runs')
      .select(['id', 'run_key', 'attempts'])
      .where((eb) => eb.or([eb('run_key', 'like', '%:infra-%'), eb('attempts', '<>', '[]')]))
      .execute();
    for (const { id, run_key, attempts } of retried as { id: string; run_key: string | null; attempts: string }[]) {
      const infraAttempt = Number(/:infra-(\d+)$/.exec(run_key ?? '')?.[1] ?? 1);
      const earlier = (JSON.parse(attempts) as { infra_attempt: number }[]).map(({ infra_attempt, ...rest }) => ({
        ...rest,
        infra_attempt: infraAttempt,
        activity_attempt: infra_attempt,
      }));
      await db
        .updateTable('node_runs')
        .set({ infra_attempt: infraAttempt, attempts: JSON.stringify(earlier) })
        .where('id', '=', id)
        .execute();
    }
  },
};

/** How long each member of an ensemble may print nothing before it is killed as idle. */
const ensembleIdleTimeout: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('ensembles').addColumn('idle_timeout_minutes', 'double precision').execute();
  },
};

/** Whether an ensemble's members work in the workdir or each in a worktree of its own. */
const ensembleIsolation: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('ensembles').addColumn('isolation', 'text').execute();
  },
};

/** How an ensemble's members run: side by side, or taking turns (null: parallel, as before kinds). */
const ensembleKinds: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('ensembles').addColumn('kind', 'text').execute();
  },
};

/** What every run together may spend on a spec. */
const specBudgets: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('specs').addColumn('budget_usd', 'double precision').execute();
    await db.schema.alterTable('specs').addColumn('budget_tokens', 'double precision').execute();
  },
};

/**
 * Which loop's run holds each workdir (by host and real path): a run claims its workdir by adding the
 * row, which the primary key lets only one run do at a time; the row of a run that has ended is taken over.
 */
const workdirClaims: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('workdir_claims')
      .addColumn('host', 'text', (col) => col.notNull())
      .addColumn('workdir', 'text', (col) => col.notNull())
      .addColumn('loop_id', 'text', (col) => col.notNull().references('loops.id').onDelete('cascade'))
      .addColumn('loop_run_id', 'text', (col) => col.notNull().references('loop_runs.id').onDelete('cascade'))
      .addColumn('claimed_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('workdir_claims_pk', ['host', 'workdir'])
      .execute();
  },
};

/** An approval node run's deadline, and who decided it and when. */
const approvals: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    for (const column of ['deadline', 'decided_by', 'decided_at'])
      await db.schema.alterTable('node_runs').addColumn(column, 'text').execute();
  },
};

/** The remarks a person sent a running loop that an agent run was given (JSON). */
const humanFeedback: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('node_runs').addColumn('human_feedback', 'text').execute();
  },
};

/** The messages to notification receivers, each delivered by a workflow of its own. */
const notifications: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('notifications')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('occurrence', 'text', (col) => col.notNull())
      .addColumn('receiver', 'text', (col) => col.notNull())
      .addColumn('loop_id', 'text', (col) => col.notNull().references('loops.id').onDelete('cascade'))
      .addColumn('event', 'text', (col) => col.notNull())
      .addColumn('url', 'text', (col) => col.notNull())
      .addColumn('format', 'text', (col) => col.notNull())
      .addColumn('message', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addUniqueConstraint('notifications_occurrence_receiver', ['occurrence', 'receiver'])
      .execute();
    await db.schema.createIndex('notifications_failures').on('notifications').columns(['loop_id', 'updated_at']).execute();
  },
};

/** The agent CLI's session a run had, where, whether it continued an earlier run's, and why not when it was to. */
const agentSessions: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    for (const column of ['session_id', 'session_workdir', 'cold_start_reason'])
      await db.schema.alterTable('node_runs').addColumn(column, 'text').execute();
    await db.schema
      .alterTable('node_runs')
      .addColumn('resumed', 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
  },
};

/** The part of a run's input tokens its provider read from a prompt cache, which it bills for less. */
const cachedInputTokens: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('node_runs').addColumn('cached_input_tokens', 'integer').execute();
  },
};

/** Every migration by name; the order prefix is the order they run in. */

export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '001_initial': initial,
  '002_node_run_attempts': nodeRunAttempts,
  '003_agent_usage': agentUsage,
  '004_loop_hosts': loopHosts,
  '005_node_run_recovery': nodeRunRecovery,
  '006_loop_schedules': loopSchedules,
  '007_ensemble_quorum_grace': ensembleQuorumGrace,
  '008_spec_failure_counts': specFailureCounts,
  '009_node_run_dirty_paths': nodeRunDirtyPaths,
  '010_loop_hooks': loopHooks,
  '011_sandboxes': sandboxes,
  '012_node_run_activity_attempts': nodeRunActivityAttempts,
  '013_ensemble_idle_timeout': ensembleIdleTimeout,
  '014_ensemble_isolation': ensembleIsolation,
  '015_spec_budgets': specBudgets,
  '016_workdir_claims': workdirClaims,
  '017_approvals': approvals,
  '018_human_feedback': humanFeedback,
  '019_notifications': notifications,
  '020_agent_sessions': agentSessions,
  '021_ensemble_kinds': ensembleKinds,
  '022_cached_input_tokens': cachedInputTokens,
};

/** The migrations a store up to date has run, in order. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS);

/**
 * Brings the schema up to date. On PostgreSQL pass the schema the tables live in: unless told,
 * Kysely looks for its migration table in every schema of the database and could mistake another
 * store's for ours.
 */
export async function migrateToLatest(db: Kysely<any>, schema?: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrateOnce(db, schema);
    } catch (error) {
      if (attempt >= CATALOG_RACE_ATTEMPTS || !isCatalogRace(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}

/**
 * On PostgreSQL Kysely's migrator reads the catalog of every schema in the database, and another
 * store's schema dropped or altered at that moment fails the read with one of these: it is read again.
 */
const CATALOG_RACES = new Set(['3F000', '42703', '42P01']);
const CATALOG_RACE_ATTEMPTS = 5;

function isCatalogRace(error: unknown): boolean {
  return hasCause(error, (cause) => typeof cause.code === 'string' && CATALOG_RACES.has(cause.code));
}

async function migrateOnce(db: Kysely<any>, schema: string | undefined): Promise<void> {
  // Every command opens the store, and migrating takes the write lock (on PostgreSQL an advisory
  // lock): a fleet of commands started at once would queue on it one by one to find nothing to do.
  if (await isUpToDate(db, schema)) return;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(MIGRATIONS) },
    migrationTableSchema: schema,
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) {
    const failed = results.find((result) => result.status === 'Error');
    const message = error instanceof Error ? error.message : JSON.stringify(error);
    throw new Error(`Store migration ${failed?.migrationName ?? '(setup)'} failed: ${message}`, { cause: error });
  }
}

/**
 * Whether the store has run exactly this code's migrations, by one read of the migration table: the
 * migrator's own check first reads the catalog, on PostgreSQL every schema's tables, which took a
 * command longer than its own queries. A store without the table is a new one.
 */
async function isUpToDate(db: Kysely<any>, schema: string | undefined): Promise<boolean> {
  let rows: { name: string }[];
  try {
    rows = await (schema ? db.withSchema(schema) : db).selectFrom(DEFAULT_MIGRATION_TABLE).select('name').execute();
  } catch {
    return false;
  }
  // More than ours means a newer canopy migrated the store: the migrator refuses it, naming what this one lacks.
  const executed = new Set(rows.map((row) => row.name));
  return executed.size === MIGRATION_NAMES.length && MIGRATION_NAMES.every((name) => executed.has(name));
}
