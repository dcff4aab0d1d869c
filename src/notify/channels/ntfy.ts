// An ntfy topic: the message as the body, the headline as its title, a tag and priority by event, and
// the run's page opened on a tap (ntfy's publish-by-header form).
import type { NotifyEvent } from '../../domain/notify';
import type { Notification } from '../message';
import { headline } from '../message';
import type { Post } from './post';

/** ntfy's priorities: 5 max, 4 high, 3 default. */
const PRIORITY: Record<NotifyEvent, string> = {
  approval_needed: '4',
  blocked: '4',
  failed: '4',
  completed: '3',
  budget_exhausted: '4',
  idle_killed: '3',
  no_progress: '4',
};

const TAG: Record<NotifyEvent, string> = {
  approval_needed: 'question',
  blocked: 'warning',
  failed: 'x',
  completed: 'white_check_mark',
  budget_exhausted: 'moneybag',
  idle_killed: 'hourglass',
  no_progress: 'repeat',
};

/** Header values are Latin-1: anything past it is written as "?" rather than refused by the HTTP client. */
const headerSafe = (text: string) => text.replace(/[^\x20-\x7e]/g, '?');

export function ntfyPost(notification: Notification): Post {
  const body = [...(notification.reason ? [notification.reason] : []), `Act: ${notification.command}`].join('\n');
  return {
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      title: headerSafe(headline(notification)),
      priority: PRIORITY[notification.event],
      tags: TAG[notification.event],
      ...(notification.temporal_ui_url ? { click: notification.temporal_ui_url } : {}),
    },
    body,
  };
}
