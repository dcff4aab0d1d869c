// A Slack incoming webhook: a `text` fallback and blocks (the headline, why, the command, a link).
import type { Notification } from '../message';
import { headline, plainText } from '../message';
import type { Post } from './post';

/** Slack's mrkdwn treats these three as markup; an agent's words are text. */
const escaped = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** A section's text may hold at most 3000 characters. */
const SECTION_LIMIT = 3000;

export function slackPost(notification: Notification): Post {
  const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text: text.slice(0, SECTION_LIMIT) } });
  const blocks = [
    section(`*${escaped(headline(notification))}*`),
    ...(notification.reason ? [section(escaped(notification.reason))] : []),
    section(`\`${escaped(notification.command)}\``),
    ...(notification.temporal_ui_url ? [section(`<${notification.temporal_ui_url}|The run in the Temporal UI>`)] : []),
  ];
  return { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: escaped(plainText(notification)), blocks }) };
}
