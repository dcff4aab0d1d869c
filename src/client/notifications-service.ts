// Notifications as the client sees them: starting each message's delivery workflow, and the last
// delivery that failed, for `loop info` and `canopy doctor`.
import { notificationWorkflowId, type NotificationInput } from '../contract';
import { shownUrl, type NotifyEvent } from '../domain/notify';
import { lastFailedNotification, pendingNotificationIds, type StoredNotification } from '../store/notifications-repository';
import { temporalClientSdk } from '../temporal/sdk';
import type { ClientContext } from './context';

export async function startDeliveries(ctx: ClientContext, notificationIds: string[]): Promise<void> {
  const { WorkflowExecutionAlreadyStartedError } = temporalClientSdk();
  const client = await ctx.temporal();
  for (const notificationId of notificationIds) {
    const input: NotificationInput = { notificationId };
    await client.workflow
      .start('notificationWorkflow', { taskQueue: ctx.config.taskQueue, workflowId: notificationWorkflowId(notificationId), args: [input] })
      .catch((error: unknown) => {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      });
  }
}

/**
 * Starts the delivery of every message still pending whose workflow is not running: one whose start was
 * lost (Temporal did not answer when the event happened) is sent now. A running delivery is left alone.
 * Returns the ids of the pending messages.
 */
export async function resumeDeliveries(ctx: ClientContext): Promise<string[]> {
  const pending = await pendingNotificationIds(ctx.db);
  await startDeliveries(ctx, pending);
  return pending;
}

export interface NotifyFailure {
  loop_id: string;
  event: NotifyEvent;
  /** Where the receiver is listed (`config.0`, `loop.1`) and its URL with its secret parts hidden. */
  receiver: string;
  url: string;
  error: string;
  attempts: number;
  /** True once its attempts are spent (or the receiver refused it): it will not be sent. */
  given_up: boolean;
  at: string;
}

/** The newest delivery that failed (still being retried, or given up), of one loop or of any; null when none did. */
export async function lastNotifyFailure(ctx: ClientContext, loopId?: string): Promise<NotifyFailure | null> {
  return notifyFailureOf(await lastFailedNotification(ctx.db, loopId));
}

export function notifyFailureOf(failed: StoredNotification | undefined): NotifyFailure | null {
  if (!failed) return null;
  return {
    loop_id: failed.loop_id,
    event: failed.event,
    receiver: failed.receiver,
    url: shownUrl(failed.url),
    error: failed.last_error ?? '',
    attempts: failed.attempts,
    given_up: failed.status === 'failed',
    at: failed.updated_at,
  };
}
