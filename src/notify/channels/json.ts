// canopy's own document: every fact of the notification as JSON, with its text ready to show.
import type { Notification } from '../message';
import { headline, plainText } from '../message';
import type { Post } from './post';

export function jsonPost(notification: Notification): Post {
  return {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...notification, title: headline(notification), text: plainText(notification) }),
  };
}
