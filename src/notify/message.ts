// What a notification says, whatever its channel: what happened, to which loop, spec and node, why,
// the command that acts on it, and where to look. Every text in it is redacted before it is made.
import type { NotifyEvent } from '../domain/notify';

export interface Notification {
  event: NotifyEvent;
  loop: { id: string; name: string; workdir: string };
  spec: { id: string; name: string } | null;
  node: string | null;
  /** Why: the blocker, the failure's reason, the approval's message; null when there is nothing more to say. */
  reason: string | null;
  /** The command that acts on it. */
  command: string;
  /** The run's page in the Temporal UI, when canopy knows where the UI is. */
  temporal_ui_url: string | null;
  at: string;
}

const WHAT_HAPPENED: Record<NotifyEvent, (n: Notification) => string> = {
  approval_needed: (n) => `waits for your approval at ${n.node}`,
  blocked: (n) => `is blocked${n.node ? ` at ${n.node}` : ''}`,
  failed: (n) => `failed${n.node ? ` at ${n.node}` : ''}`,
  completed: () => 'completed',
  budget_exhausted: () => 'used up its budget and is blocked',
  idle_killed: (n) => `had ${n.node} killed for printing nothing`,
  no_progress: (n) => `is making no progress${n.node ? ` at ${n.node}` : ''} and is blocked`,
};

/** One line: "Loop api-fixes waits for your approval at review (spec parser)". */
export function headline(notification: Notification): string {
  const spec = notification.spec ? ` (spec ${notification.spec.name})` : '';
  return `Loop ${notification.loop.name} ${WHAT_HAPPENED[notification.event](notification)}${spec}`;
}

/** The whole message as plain text: the headline, why, the command, the link. */
export function plainText(notification: Notification): string {
  return [
    headline(notification),
    ...(notification.reason ? [notification.reason] : []),
    `Act: ${notification.command}`,
    ...(notification.temporal_ui_url ? [`Run: ${notification.temporal_ui_url}`] : []),
  ].join('\n');
}
