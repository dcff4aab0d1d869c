// Loops: their rows, lookups by workdir and name, and lifecycle status.
import type { Loop, LoopHooks, LoopStatus } from '../domain';
import { fromFlag, fromJson, mapPresent, now, toFlag, toJson } from './columns';
import type { DatabaseOrTransaction, LoopRow, LoopRowUpdate } from './database';
import { inIdBatches, newId } from './ids';

export type NewLoop = Pick<Loop, 'name' | 'workdir' | 'description' | 'settings'> & Partial<Pick<Loop, 'host' | 'hooks'>>;
export type LoopChanges = Partial<Pick<Loop, 'name' | 'workdir' | 'host' | 'description' | 'settings' | 'hooks' | 'archived' | 'status'>>;

export async function insertLoop(db: DatabaseOrTransaction, loop: NewLoop): Promise<Loop> {
  const timestamp = now();
  const row = await db
    .insertInto('loops')
    .values({
      id: newId('loop'),
      name: loop.name,
      workdir: loop.workdir,
      host: loop.host ?? null,
      description: loop.description,
      settings: toJson(loop.settings),
      hooks: toJson(loop.hooks ?? {}),
      created_at: timestamp,
      updated_at: timestamp,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return loopFromRow(row);
}

export async function getLoop(db: DatabaseOrTransaction, id: string): Promise<Loop | undefined> {
  const row = await db.selectFrom('loops').selectAll().where('id', '=', id).executeTakeFirst();
  return row && loopFromRow(row);
}

/** Which of `ids` are loops of the store. */
export async function existingLoopIds(db: DatabaseOrTransaction, ids: readonly string[]): Promise<string[]> {
  return inIdBatches(ids, async (batch) =>
    (await db.selectFrom('loops').select('id').where('id', 'in', batch).execute()).map((row) => row.id),
  );
}

export async function listLoops(
  db: DatabaseOrTransaction,
  { includeArchived = false }: { includeArchived?: boolean } = {},
): Promise<Loop[]> {
  let query = db.selectFrom('loops').selectAll().orderBy('name').orderBy('workdir');
  if (!includeArchived) query = query.where('archived', '=', toFlag(false));
  return (await query.execute()).map(loopFromRow);
}

/** Applies the given changes and bumps updated_at; undefined when no loop has this id. */
export async function updateLoop(db: DatabaseOrTransaction, id: string, changes: LoopChanges): Promise<Loop | undefined> {
  const row = await db
    .updateTable('loops')
    .set({ ...loopChangesToRow(changes), updated_at: now() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row && loopFromRow(row);
}

export async function setLoopStatus(db: DatabaseOrTransaction, id: string, status: LoopStatus): Promise<Loop | undefined> {
  return updateLoop(db, id, { status });
}

/** Deletes the loop with its graph, node runs and loop runs; its specs return to the backlog. */
export async function deleteLoop(db: DatabaseOrTransaction, id: string): Promise<boolean> {
  const result = await db.deleteFrom('loops').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function findLoopByName(db: DatabaseOrTransaction, workdir: string, name: string): Promise<Loop | undefined> {
  const row = await db.selectFrom('loops').selectAll().where('workdir', '=', workdir).where('name', '=', name).executeTakeFirst();
  return row && loopFromRow(row);
}

/** Names taken in a workdir, archived loops included, for picking a free name. */
export async function loopNamesInWorkdir(db: DatabaseOrTransaction, workdir: string): Promise<string[]> {
  const rows = await db.selectFrom('loops').select('name').where('workdir', '=', workdir).orderBy('name').execute();
  return rows.map((row) => row.name);
}

/** How many loops (archived ones left out) live on each host that some loop names. */
export async function loopCountsByHost(db: DatabaseOrTransaction): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('loops')
    .select((eb) => ['host', eb.fn.countAll().as('loops')])
    .where('host', 'is not', null)
    .where('archived', '=', toFlag(false))
    .groupBy('host')
    .orderBy('host')
    .execute();
  // PostgreSQL returns counts as strings.
  return new Map(rows.map((row) => [row.host!, Number(row.loops)]));
}

/** How many loops (archived ones left out) are in each status. */
export async function loopCountsByStatus(db: DatabaseOrTransaction): Promise<Map<LoopStatus, number>> {
  const rows = await db
    .selectFrom('loops')
    .select((eb) => ['status', eb.fn.countAll().as('loops')])
    .where('archived', '=', toFlag(false))
    .groupBy('status')
    .execute();
  return new Map(rows.map((row) => [row.status, Number(row.loops)]));
}

function loopFromRow(row: LoopRow): Loop {
  return {
    id: row.id,
    name: row.name,
    workdir: row.workdir,
    host: row.host,
    description: row.description,
    status: row.status,
    settings: fromJson(row.settings),
    hooks: fromJson<LoopHooks>(row.hooks),
    archived: fromFlag(row.archived),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function loopChangesToRow(changes: LoopChanges): LoopRowUpdate {
  return {
    name: changes.name,
    workdir: changes.workdir,
    host: changes.host,
    description: changes.description,
    status: changes.status,
    settings: mapPresent(changes.settings, toJson),
    hooks: mapPresent(changes.hooks, toJson),
    archived: mapPresent(changes.archived, toFlag),
  };
}
