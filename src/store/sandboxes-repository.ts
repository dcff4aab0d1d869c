// Sandboxes: the worktree each sandboxed run works in, and whether it was landed or discarded.
import type { Sandbox, SandboxStatus } from '../domain';
import { now } from './columns';
import type { DatabaseOrTransaction } from './database';
import { newId } from './ids';

export type NewSandbox = Pick<Sandbox, 'loop_id' | 'loop_run_id' | 'branch' | 'path' | 'base_head' | 'host'>;

export async function insertSandbox(db: DatabaseOrTransaction, sandbox: NewSandbox): Promise<Sandbox> {
  const timestamp = now();
  return db
    .insertInto('sandboxes')
    .values({ ...sandbox, id: newId('sbx'), created_at: timestamp, updated_at: timestamp })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function getSandbox(db: DatabaseOrTransaction, id: string): Promise<Sandbox | undefined> {
  return db.selectFrom('sandboxes').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function sandboxOfRun(db: DatabaseOrTransaction, loopRunId: string): Promise<Sandbox | undefined> {
  return db.selectFrom('sandboxes').selectAll().where('loop_run_id', '=', loopRunId).executeTakeFirst();
}

/** Newest first; only the loop's when `loopId` is given. */
export async function listSandboxes(db: DatabaseOrTransaction, filter: { loopId?: string } = {}): Promise<Sandbox[]> {
  let query = db.selectFrom('sandboxes').selectAll();
  if (filter.loopId) query = query.where('loop_id', '=', filter.loopId);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export async function updateSandbox(
  db: DatabaseOrTransaction,
  id: string,
  changes: { status?: SandboxStatus; landed_commit?: string | null; loop_run_id?: string },
): Promise<Sandbox | undefined> {
  return db
    .updateTable('sandboxes')
    .set({ ...changes, updated_at: now() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
