// Where canopy tells a person what happened: receivers of config.json (every loop) and of a loop's settings.
import { z } from 'zod';

export const NOTIFY_EVENTS = [
  'approval_needed',
  'blocked',
  'failed',
  'completed',
  'budget_exhausted',
  'idle_killed',
  'no_progress',
] as const;
export const NotifyEvent = z.enum(NOTIFY_EVENTS);
export type NotifyEvent = z.infer<typeof NotifyEvent>;

export const NOTIFY_FORMATS = ['json', 'slack', 'ntfy'] as const;
export type NotifyFormat = (typeof NOTIFY_FORMATS)[number];

const MAX_RECEIVERS = 20;

const ReceiverUrl = z
  .string({ error: 'must be the receiver’s URL, e.g. https://ntfy.sh/my-topic' })
  .max(2048, 'must be at most 2048 characters')
  .superRefine((text, ctx) => {
    const problem = urlProblem(text);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

function urlProblem(text: string): string | null {
  if (text.includes(REDACTED_URL_PART)) return 'holds a redacted part (an export hides what may be a token); write the receiver’s full URL';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL; give an http(s) address, e.g. https://hooks.slack.com/services/…';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `uses ${url.protocol}; only http and https receivers are supported`;
  return null;
}

export const NotifyReceiver = z
  .object({
    url: ReceiverUrl.describe('Where to POST each message; a token in it is redacted wherever canopy shows it'),
    events: z
      .array(NotifyEvent, { error: `must be a list of events: ${NOTIFY_EVENTS.join(', ')}` })
      .min(1, 'must name at least one event')
      .optional()
      .describe(`The events to send (default: all of ${NOTIFY_EVENTS.join(', ')})`),
    format: z
      .enum(NOTIFY_FORMATS, { error: `must be one of ${NOTIFY_FORMATS.join(', ')}` })
      .optional()
      .describe('json (canopy’s own document, the default), slack (an incoming webhook) or ntfy (a topic URL)'),
  })
  .strict();
export type NotifyReceiver = z.infer<typeof NotifyReceiver>;

export const NotifyReceivers = z.array(NotifyReceiver).max(MAX_RECEIVERS, `must list at most ${MAX_RECEIVERS} receivers`);

export function receiverWants(receiver: NotifyReceiver, event: NotifyEvent): boolean {
  return receiver.events === undefined || receiver.events.includes(event);
}

/** What stands for a receiver URL's path, query and credentials wherever canopy shows it. */
export const REDACTED_URL_PART = '[REDACTED]';

/**
 * A receiver's URL as canopy shows it: its scheme, host and port only. A webhook's path (Slack's),
 * a topic (ntfy's), a query or credentials may each be the secret that lets anyone post or read.
 */
export function shownUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return REDACTED_URL_PART;
  }
  const bare = url.pathname === '/' && url.search === '' && url.username === '' && url.password === '';
  return bare ? `${url.origin}/` : `${url.origin}/${REDACTED_URL_PART}`;
}

/** A loop (or its settings' holder) as canopy shows it: each receiver's URL with its secret parts hidden. */
export function withShownReceivers<T extends { settings: { notify?: NotifyReceiver[] } }>(holder: T): T {
  const { notify } = holder.settings;
  if (!notify) return holder;
  return { ...holder, settings: { ...holder.settings, notify: notify.map((receiver) => ({ ...receiver, url: shownUrl(receiver.url) })) } };
}
