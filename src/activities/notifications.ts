// Telling people what happened: an event's messages are made, one per receiver that wants it (config.json's,
// then the loop's), and each is handed to a delivery workflow of its own. Nothing here fails or holds
// back the activity that tells of the event: a receiver is reached later, or its failure is recorded.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { notifyReceivers } from '../agents/config';
import { DELIVERY_RETRY, DELIVERY_TIMEOUT_SECONDS, type NotificationInput } from '../contract';
import type { Loop } from '../domain/loop';
import { receiverWants, shownUrl, type NotifyEvent, type NotifyReceiver } from '../domain/notify';
import { truncate } from '../graph/feedback';
import { redact } from '../graph/redact';
import { CHANNELS } from '../notify/channels';
import { postTo } from '../notify/deliver';
import type { Notification } from '../notify/message';
import { getNotification, insertNotifications, recordAttempt, type NewNotification } from '../store/notifications-repository';
import type { ActivityDeps } from './deps';

/** Longest reason a message carries (its head and tail kept): a phone shows a few lines, ntfy takes 4 KB. */
const REASON_LIMIT = 2000;

/** What an activity knows of an event; the loop, the time and the link are added here. */
export interface EventFacts {
  event: NotifyEvent;
  loop: Loop;
  spec: { id: string; name: string } | null;
  node: string | null;
  reason: string | null;
  command: string;
  workflowId: string | null;
}

export async function announce(deps: ActivityDeps, facts: EventFacts): Promise<void> {
  try {
    const ids = await insertNotifications(deps.db, messagesOf(deps, facts));
    if (ids.length > 0) await deps.startDeliveries(ids);
  } catch (error) {
    console.warn(`[canopy] could not send the ${facts.event} notification of loop ${facts.loop.name}: ${redact((error as Error).message)}`);
  }
}

function messagesOf(deps: ActivityDeps, facts: EventFacts): NewNotification[] {
  const { workflowExecution, activityId } = Context.current().info;
  // The same for every attempt of the activity, and for no other: its retry makes no second message.
  const occurrence = `${workflowExecution?.runId ?? workflowExecution?.workflowId}:${activityId}`;
  const message: Notification = {
    event: facts.event,
    loop: { id: facts.loop.id, name: facts.loop.name, workdir: facts.loop.workdir },
    spec: facts.spec,
    node: facts.node,
    reason: facts.reason === null ? null : truncate(redact(facts.reason), REASON_LIMIT),
    command: facts.command,
    temporal_ui_url: facts.workflowId === null ? null : deps.runPageUrl(facts.workflowId),
    at: new Date().toISOString(),
  };
  const listed: [string, NotifyReceiver[]][] = [
    ['config', notifyReceivers(deps.home)],
    ['loop', facts.loop.settings.notify ?? []],
  ];
  return listed.flatMap(([source, receivers]) =>
    receivers.flatMap((receiver, index) =>
      receiverWants(receiver, facts.event)
        ? [{ occurrence, receiver: `${source}.${index}`, url: receiver.url, format: receiver.format ?? 'json', message }]
        : [],
    ),
  );
}

export function notificationActivities(deps: ActivityDeps) {
  return {
    async deliverNotification({ notificationId }: NotificationInput): Promise<string> {
      const notification = await getNotification(deps.db, notificationId);
      if (!notification || notification.status !== 'pending') return `nothing to send: ${notification?.status ?? 'no such message'}`;
      const receiver = `${notification.format} receiver ${shownUrl(notification.url)}`;
      const failure = await postTo(notification.url, CHANNELS[notification.format](notification.message), DELIVERY_TIMEOUT_SECONDS);
      if (!failure) {
        await recordAttempt(deps.db, notificationId, { status: 'delivered', error: null });
        return `delivered to the ${receiver}`;
      }
      const last = !failure.retryable || Context.current().info.attempt >= DELIVERY_RETRY.maximumAttempts;
      await recordAttempt(deps.db, notificationId, { status: last ? 'failed' : 'pending', error: failure.error });
      if (!last) throw ApplicationFailure.retryable(`${failure.error} (${receiver})`, 'notify_failed');
      return `not delivered to the ${receiver}: ${failure.error}; given up`;
    },
  };
}
