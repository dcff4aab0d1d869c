// Specs: units of work kept in order, in a loop's list or in the backlog (no loop).
import { sql, type ExpressionBuilder } from 'kysely';
import type { Spec, SpecStatus } from '../domain';
import { now } from './columns';
import type { Database, DatabaseOrTransaction, SpecRow, SpecRowUpdate } from './database';
import { newId } from './ids';

/** A spec with the one-line summary its run left behind (listed by the on_completed hook). */
export type StoredSpec = Spec & { summary: string | null };

export type NewSpec = Pick<StoredSpec, 'name' | 'content' | 'loop_id' | 'workdir'> &
  Partial<Pick<StoredSpec, 'budget_usd' | 'budget_tokens'>>;
export type SpecChanges = Partial<
  Pick<StoredSpec, 'name' | 'content' | 'status' | 'loop_id' | 'workdir' | 'position' | 'summary' | 'budget_usd' | 'budget_tokens'>
>;

export interface SpecFilter {
  loopId?: string;
  workdir?: string;
  /** Only specs bound to no loop. */
  backlogOnly?: boolean;
  status?: SpecStatus;
}

/** Inserts the spec at the end of its list: its loop's, or the backlog's. */
export async function insertSpec(db: DatabaseOrTransaction, spec: NewSpec): Promise<StoredSpec> {
  const timestamp = now();
  const row = await db
    .insertInto('specs')
    .values((eb) => ({
      id: newId('spec'),
      loop_id: spec.loop_id,
      name: spec.name,
      content: spec.content,
      workdir: spec.workdir,
      budget_usd: spec.budget_usd ?? null,
      budget_tokens: spec.budget_tokens ?? null,
      position: endOfList(eb, spec.loop_id),
      created_at: timestamp,
      updated_at: timestamp,
    }))
    .returningAll()
    .executeTakeFirstOrThrow();
  return specFromRow(row);
}

export async function getSpec(db: DatabaseOrTransaction, id: string): Promise<StoredSpec | undefined> {
  const row = await db.selectFrom('specs').selectAll().where('id', '=', id).executeTakeFirst();
  return row && specFromRow(row);
}

export async function listSpecs(db: DatabaseOrTransaction, filter: SpecFilter = {}): Promise<StoredSpec[]> {
  let query = db.selectFrom('specs').selectAll().orderBy('position').orderBy('created_at').orderBy('id');
  if (filter.loopId !== undefined) query = query.where('loop_id', '=', filter.loopId);
  if (filter.backlogOnly) query = query.where('loop_id', 'is', null);
  if (filter.workdir !== undefined) query = query.where('workdir', '=', filter.workdir);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  return (await query.execute()).map(specFromRow);
}

/**
 * Applies the changes and bumps updated_at. A spec moved to another loop or to the backlog goes
 * to the end of that list unless a position is given.
 */
export async function updateSpec(db: DatabaseOrTransaction, id: string, changes: SpecChanges): Promise<StoredSpec | undefined> {
  const { loop_id: newLoopId, position } = changes;
  const row = await db
    .updateTable('specs')
    .set((eb) => ({
      ...specChangesToRow(changes),
      updated_at: now(),
      ...(newLoopId !== undefined &&
        position === undefined && {
          position: eb.case().when(inList(eb, newLoopId)).then(eb.ref('position')).else(endOfList(eb, newLoopId)).end(),
        }),
    }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row && specFromRow(row);
}

export async function deleteSpec(db: DatabaseOrTransaction, id: string): Promise<boolean> {
  const result = await db.deleteFrom('specs').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Marks the spec failed and counts the run it failed in. Only a spec not failed already counts,
 * so recording the same failure again (a retried activity) counts it once.
 */
export async function recordSpecFailure(db: DatabaseOrTransaction, id: string): Promise<void> {
  await db
    .updateTable('specs')
    .set((eb) => ({ status: 'failed', failure_count: eb('failure_count', '+', 1), updated_at: now() }))
    .where('id', '=', id)
    .where('status', '<>', 'failed')
    .execute();
}

/** Returns the specs to pending with no failed runs counted. */
export async function resetSpecs(db: DatabaseOrTransaction, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('specs').set({ status: 'pending', failure_count: 0, updated_at: now() }).where('id', 'in', ids).execute();
}

/** The loop's first pending spec in list order. */
export async function nextPendingSpec(db: DatabaseOrTransaction, loopId: string): Promise<StoredSpec | undefined> {
  const row = await db
    .selectFrom('specs')
    .selectAll()
    .where('loop_id', '=', loopId)
    .where('status', '=', 'pending')
    .orderBy('position')
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row && specFromRow(row);
}

/** Whether a spec row is in the list of `loopId` (null: the backlog). */
function inList(eb: ExpressionBuilder<Database, 'specs'>, loopId: string | null) {
  return loopId === null ? eb('loop_id', 'is', null) : eb('loop_id', '=', loopId);
}

/** The position after the last spec of the list of `loopId`, computed inside the writing statement. */
function endOfList(eb: ExpressionBuilder<Database, 'specs'>, loopId: string | null) {
  return eb
    .selectFrom('specs')
    .select(sql<number>`coalesce(max(position), 0) + 1`.as('position'))
    .where((inner) => inList(inner, loopId));
}

function specFromRow(row: SpecRow): StoredSpec {
  return {
    id: row.id,
    loop_id: row.loop_id,
    name: row.name,
    content: row.content,
    status: row.status,
    workdir: row.workdir,
    position: row.position,
    failure_count: row.failure_count,
    budget_usd: row.budget_usd,
    budget_tokens: row.budget_tokens,
    summary: row.summary,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function specChangesToRow(changes: SpecChanges): SpecRowUpdate {
  return {
    name: changes.name,
    content: changes.content,
    status: changes.status,
    loop_id: changes.loop_id,
    workdir: changes.workdir,
    position: changes.position,
    summary: changes.summary,
    budget_usd: changes.budget_usd,
    budget_tokens: changes.budget_tokens,
  };
}
