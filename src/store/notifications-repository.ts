// Notifications: one row per message to one receiver about one event, from its making to its delivery
// or its last failed attempt.
import type { Selectable } from 'kysely';
import type { NotifyEvent, NotifyFormat } from '../domain/notify';
import type { Notification } from '../notify/message';
import { now } from './columns';
import type { DatabaseOrTransaction, NotificationsTable } from './database';
import { newId } from './ids';

export interface NewNotification {
  occurrence: string;
  receiver: string;
  url: string;
  format: NotifyFormat;
  message: Notification;
}

export interface StoredNotification {
  id: string;
  receiver: string;
  loop_id: string;
  event: NotifyEvent;
  url: string;
  format: NotifyFormat;
  message: Notification;
  status: NotificationsTable['status'];
  attempts: number;
  last_error: string | null;
  updated_at: string;
}

/** Adds the messages not made already (a retried activity makes none twice); returns the ids of all of them, made now or before. */
export async function insertNotifications(db: DatabaseOrTransaction, notifications: NewNotification[]): Promise<string[]> {
  if (notifications.length === 0) return [];
  const at = now();
  await db
    .insertInto('notifications')
    .values(
      notifications.map((n) => ({
        id: newId('ntf'),
        occurrence: n.occurrence,
        receiver: n.receiver,
        loop_id: n.message.loop.id,
        event: n.message.event,
        url: n.url,
        format: n.format,
        message: JSON.stringify(n.message),
        status: 'pending' as const,
        created_at: at,
        updated_at: at,
      })),
    )
    .onConflict((conflict) => conflict.columns(['occurrence', 'receiver']).doNothing())
    .execute();
  const rows = await db
    .selectFrom('notifications')
    .select(['id', 'receiver'])
    .where('occurrence', '=', notifications[0].occurrence)
    .where(
      'receiver',
      'in',
      notifications.map((n) => n.receiver),
    )
    .execute();
  return rows.map((row) => row.id);
}

/** The messages not yet delivered nor given up, oldest first: a start of their delivery may have been lost. */
export async function pendingNotificationIds(db: DatabaseOrTransaction): Promise<string[]> {
  const rows = await db.selectFrom('notifications').select('id').where('status', '=', 'pending').orderBy('created_at').execute();
  return rows.map((row) => row.id);
}

export async function getNotification(db: DatabaseOrTransaction, id: string): Promise<StoredNotification | undefined> {
  const row = await db.selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirst();
  return row && fromRow(row);
}

/** Records an attempt: delivered, failed again (with why), or failed for good. */
export async function recordAttempt(
  db: DatabaseOrTransaction,
  id: string,
  attempt: { status: NotificationsTable['status']; error: string | null },
): Promise<void> {
  await db
    .updateTable('notifications')
    .set((eb) => ({
      status: attempt.status,
      attempts: eb('attempts', '+', 1),
      ...(attempt.error !== null && { last_error: attempt.error }),
      updated_at: now(),
    }))
    .where('id', '=', id)
    .execute();
}

/** The newest message whose delivery failed at least once (still retried, or given up); of one loop, or of any. */
export async function lastFailedNotification(db: DatabaseOrTransaction, loopId?: string): Promise<StoredNotification | undefined> {
  let query = db.selectFrom('notifications').selectAll().where('last_error', 'is not', null);
  if (loopId !== undefined) query = query.where('loop_id', '=', loopId);
  const row = await query.orderBy('updated_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row && fromRow(row);
}

function fromRow(row: Selectable<NotificationsTable>): StoredNotification {
  return {
    id: row.id,
    receiver: row.receiver,
    loop_id: row.loop_id,
    event: row.event as NotifyEvent,
    url: row.url,
    format: row.format as NotifyFormat,
    message: JSON.parse(row.message) as Notification,
    status: row.status,
    attempts: row.attempts,
    last_error: row.last_error,
    updated_at: row.updated_at,
  };
}
