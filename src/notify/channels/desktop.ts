// Telling a human: a desktop notification where notify-send exists, and always a line on stderr.
import { spawn } from 'node:child_process';
import { findOnPath } from '../../process/find-on-path';

export function notifyHuman(title: string, body: string): void {
  console.warn(`[canopy] ${title}: ${body}`);
  const notifySend = findOnPath('notify-send', process.env.PATH ?? '');
  if (!notifySend) return;
  const child = spawn(notifySend, ['--app-name=canopy', title, body], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
}
