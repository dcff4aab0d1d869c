// Loop schedules: which loops run on a recurring Temporal Schedule, and its timing as given.
import type { LoopSchedule } from '../domain';
import { now } from './columns';
import type { DatabaseOrTransaction } from './database';

export type StoredSchedule = LoopSchedule & { created_at: string; updated_at: string };

/** Records the loop's schedule, replacing the one it had. */
export async function putSchedule(db: DatabaseOrTransaction, schedule: LoopSchedule): Promise<StoredSchedule> {
  const timestamp = now();
  const timing = { cron: schedule.cron, every: schedule.every, timezone: schedule.timezone, queue_id: schedule.queue_id };
  const row = await db
    .insertInto('loop_schedules')
    .values({ loop_id: schedule.loop_id, ...timing, created_at: timestamp, updated_at: timestamp })
    .onConflict((conflict) => conflict.column('loop_id').doUpdateSet({ ...timing, updated_at: timestamp }))
    .returningAll()
    .executeTakeFirstOrThrow();
  return row;
}

export async function getSchedule(db: DatabaseOrTransaction, loopId: string): Promise<StoredSchedule | undefined> {
  const row = await db.selectFrom('loop_schedules').selectAll().where('loop_id', '=', loopId).executeTakeFirst();
  return row;
}

export async function deleteSchedule(db: DatabaseOrTransaction, loopId: string): Promise<boolean> {
  const result = await db.deleteFrom('loop_schedules').where('loop_id', '=', loopId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
