// The channels a receiver's format names; the compiler refuses a format without one.
import type { NotifyFormat } from '../../domain/notify';
import { jsonPost } from './json';
import { ntfyPost } from './ntfy';
import type { Channel } from './post';
import { slackPost } from './slack';

export const CHANNELS: Readonly<Record<NotifyFormat, Channel>> = { json: jsonPost, slack: slackPost, ntfy: ntfyPost };
