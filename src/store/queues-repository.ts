// Queues: named, ordered lists of spec ids that a loop run can drain instead of the loop's own list.
import type { Queue } from '../domain';
import { invalidInput } from '../domain/errors';
import { now } from './columns';
import { inTransaction, type DatabaseOrTransaction, type QueueRow } from './database';
import { newId } from './ids';

export async function createQueue(db: DatabaseOrTransaction, name: string): Promise<Queue> {
  const row = await db
    .insertInto('queues')
    .values({ id: newId('queue'), name, created_at: now() })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...pickQueueFields(row), spec_ids: [] };
}

export async function getQueue(db: DatabaseOrTransaction, id: string): Promise<Queue | undefined> {
  const row = await db.selectFrom('queues').selectAll().where('id', '=', id).executeTakeFirst();
  return row && { ...pickQueueFields(row), spec_ids: await queueOrder(db, id) };
}

export async function listQueues(db: DatabaseOrTransaction): Promise<Queue[]> {
  const [rows, entries] = await Promise.all([
    db.selectFrom('queues').selectAll().orderBy('name').execute(),
    db.selectFrom('queue_specs').select(['queue_id', 'spec_id']).orderBy('queue_id').orderBy('position').execute(),
  ]);
  return rows.map((row) => ({
    ...pickQueueFields(row),
    spec_ids: entries.filter((entry) => entry.queue_id === row.id).map((entry) => entry.spec_id),
  }));
}

/** Adds the spec at `index` (0 is the front), or at the end when no index is given. */
export async function addSpecToQueue(
  db: DatabaseOrTransaction,
  queueId: string,
  specId: string,
  index?: number,
): Promise<Queue | undefined> {
  return rewriteOrder(db, queueId, (specIds) => {
    const at = index === undefined ? specIds.length : Math.max(0, Math.min(index, specIds.length));
    return [...specIds.slice(0, at), specId, ...specIds.slice(at)];
  });
}

export async function removeSpecFromQueue(db: DatabaseOrTransaction, queueId: string, specId: string): Promise<Queue | undefined> {
  return rewriteOrder(db, queueId, (specIds) => specIds.filter((id) => id !== specId));
}

/** Puts the queue in the given order, which must list each of its specs exactly once. */
export async function reorderQueue(db: DatabaseOrTransaction, queueId: string, specIds: string[]): Promise<Queue | undefined> {
  return rewriteOrder(db, queueId, (current) => {
    const missing = current.filter((id) => !specIds.includes(id));
    const unknown = specIds.filter((id) => !current.includes(id));
    const repeated = specIds.filter((id, i) => specIds.indexOf(id) !== i);
    if (missing.length || unknown.length || repeated.length) {
      const problems = [
        missing.length && `missing ${missing.join(', ')}`,
        unknown.length && `not in the queue ${unknown.join(', ')}`,
        repeated.length && `repeated ${repeated.join(', ')}`,
      ].filter(Boolean);
      throw invalidInput('The queue order', [
        { field: 'spec_ids', message: `must list each spec of the queue exactly once (${problems.join('; ')})` },
      ]);
    }
    return specIds;
  });
}

/** Deletes the queue; its specs stay. */
export async function deleteQueue(db: DatabaseOrTransaction, id: string): Promise<boolean> {
  const result = await db.deleteFrom('queues').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

async function queueOrder(db: DatabaseOrTransaction, queueId: string): Promise<string[]> {
  const rows = await db.selectFrom('queue_specs').select('spec_id').where('queue_id', '=', queueId).orderBy('position').execute();
  return rows.map((row) => row.spec_id);
}

/** Reads the queue's order, lets `reorder` compute the new one, and writes it back atomically. */
async function rewriteOrder(
  db: DatabaseOrTransaction,
  queueId: string,
  reorder: (specIds: string[]) => string[],
): Promise<Queue | undefined> {
  return inTransaction(db, async (tx) => {
    const queue = await getQueue(tx, queueId);
    if (!queue) return undefined;
    const specIds = reorder(queue.spec_ids);
    await tx.deleteFrom('queue_specs').where('queue_id', '=', queueId).execute();
    if (specIds.length) {
      await tx
        .insertInto('queue_specs')
        .values(specIds.map((specId, position) => ({ queue_id: queueId, spec_id: specId, position })))
        .execute();
    }
    return { ...queue, spec_ids: specIds };
  });
}

function pickQueueFields(row: QueueRow): Omit<Queue, 'spec_ids'> {
  return { id: row.id, name: row.name, created_at: row.created_at };
}
