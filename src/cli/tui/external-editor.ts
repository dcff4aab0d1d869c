// Editing a text in the person's own editor ($VISUAL, else $EDITOR) from a full-screen app:
// the terminal is handed over while the editor runs (cooked mode, main screen) and taken back after.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ENTER_APP_SCREEN = '\x1b[?1049h\x1b[2J\x1b[H\x1b[?25l';
export const LEAVE_APP_SCREEN = '\x1b[?25h\x1b[?1049l';

/** The person's editor command, or null when neither $VISUAL nor $EDITOR names one. */
export function externalEditor(): string | null {
  return process.env.VISUAL || process.env.EDITOR || null;
}

/** The text as `editor` saved it; throws when the editor cannot start or exits with a failure. */
export function editInTerminal(editor: string, text: string, fileName: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'canopy-edit-'));
  const file = path.join(dir, fileName);
  writeFileSync(file, text);
  const stdin = process.stdin;
  if (stdin.isTTY) stdin.setRawMode(false);
  process.stdout.write(LEAVE_APP_SCREEN);
  try {
    // Through a shell, as other tools run $EDITOR: it may hold arguments ("code --wait").
    const result = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'sh', file], { stdio: 'inherit' });
    if (result.error) throw result.error;
    if (result.status !== 0) throw new Error(`the editor (${editor}) exited with status ${result.status}`);
    return readFileSync(file, 'utf8');
  } finally {
    process.stdout.write(ENTER_APP_SCREEN);
    if (stdin.isTTY) stdin.setRawMode(true);
    rmSync(dir, { recursive: true, force: true });
  }
}
