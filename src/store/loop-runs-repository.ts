// Loop runs: one record per workflow run of a loop, with where it failed and where to resume.
import type { FailureKind } from '../domain';
import { fromFlag, mapPresent, now, toFlag } from './columns';
import type { DatabaseOrTransaction, LoopRunRow, LoopRunRowUpdate } from './database';
import { newId } from './ids';

export interface LoopRun {
  id: string;
  loop_id: string;
  workflow_id: string;
  /** The queue the run drains, or null for the loop's own specs. */
  queue_id: string | null;
  /** The engine's word for the run's state (running, completed, failed…); the store keeps it as given. */
  status: string;
  failing_node: string | null;
  failure_kind: FailureKind | null;
  failure_reason: string | null;
  /** Where a failed run can be continued from, as the engine serialised it (the store keeps it opaque). */
  resume: string | null;
  started_at: string;
  ended_at: string | null;
  /** Whether the loop's on_completed hook has fired for this run. */
  hook_fired: boolean;
}

/** What a run knows when it starts; status defaults to running. */
export type NewLoopRun = Pick<LoopRun, 'loop_id' | 'workflow_id'> & Partial<Omit<LoopRun, 'id' | 'loop_id' | 'workflow_id'>>;
export type LoopRunChanges = Partial<Omit<LoopRun, 'id' | 'loop_id'>>;

export async function insertLoopRun(db: DatabaseOrTransaction, run: NewLoopRun): Promise<LoopRun> {
  const row = await db
    .insertInto('loop_runs')
    .values({
      ...loopRunChangesToRow(run),
      id: newId('lrun'),
      loop_id: run.loop_id,
      workflow_id: run.workflow_id,
      started_at: run.started_at ?? now(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return loopRunFromRow(row);
}

export async function updateLoopRun(db: DatabaseOrTransaction, id: string, changes: LoopRunChanges): Promise<LoopRun | undefined> {
  const row = await db.updateTable('loop_runs').set(loopRunChangesToRow(changes)).where('id', '=', id).returningAll().executeTakeFirst();
  return row && loopRunFromRow(row);
}

export async function deleteLoopRun(db: DatabaseOrTransaction, id: string): Promise<void> {
  await db.deleteFrom('loop_runs').where('id', '=', id).execute();
}

export async function getLoopRun(db: DatabaseOrTransaction, id: string): Promise<LoopRun | undefined> {
  const row = await db.selectFrom('loop_runs').selectAll().where('id', '=', id).executeTakeFirst();
  return row && loopRunFromRow(row);
}

/** The loop's most recently started run; `besides` leaves one out (the newest, to find the one before it). */
export async function latestLoopRun(db: DatabaseOrTransaction, loopId: string, besides?: string): Promise<LoopRun | undefined> {
  let query = db.selectFrom('loop_runs').selectAll().where('loop_id', '=', loopId);
  if (besides) query = query.where('id', '!=', besides);
  const row = await query.orderBy('started_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row && loopRunFromRow(row);
}

/**
 * Marks the run's on_completed hook as fired. Returns true only to the one caller that changed it,
 * so a retried activity can tell the hook already fired and the hook fires exactly once.
 */
export async function markLoopRunHookFired(db: DatabaseOrTransaction, id: string): Promise<boolean> {
  const result = await db
    .updateTable('loop_runs')
    .set({ hook_fired: toFlag(true) })
    .where('id', '=', id)
    .where('hook_fired', '=', toFlag(false))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

function loopRunFromRow(row: LoopRunRow): LoopRun {
  return {
    id: row.id,
    loop_id: row.loop_id,
    workflow_id: row.workflow_id,
    queue_id: row.queue_id,
    status: row.status,
    failing_node: row.failing_node,
    failure_kind: row.failure_kind,
    failure_reason: row.failure_reason,
    resume: row.resume,
    started_at: row.started_at,
    ended_at: row.ended_at,
    hook_fired: fromFlag(row.hook_fired),
  };
}

function loopRunChangesToRow(changes: LoopRunChanges): LoopRunRowUpdate {
  return {
    workflow_id: changes.workflow_id,
    queue_id: changes.queue_id,
    status: changes.status,
    failing_node: changes.failing_node,
    failure_kind: changes.failure_kind,
    failure_reason: changes.failure_reason,
    resume: changes.resume,
    started_at: changes.started_at,
    ended_at: changes.ended_at,
    hook_fired: mapPresent(changes.hook_fired, toFlag),
  };
}
