// canopy's state is its user's alone: <home> holds node output, run inputs, the operator token and
// config.json (which may hold API keys), so it is kept 0700 and those files 0600, whatever the
// umask of the process that made them.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, openSync, statSync, writeFileSync } from 'node:fs';
import { link, readFile, rm, writeFile } from 'node:fs/promises';

const PRIVATE_DIRECTORY = 0o700;
const PRIVATE_FILE = 0o600;

/** Creates `dir` owner-only, or narrows it to owner-only when it is ours and others may read it. */
export function ensurePrivateDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIRECTORY });
  narrow(dir, PRIVATE_DIRECTORY);
}

/** Creates `file` empty and owner-only unless it exists; narrows an existing one that others may read. */
export function ensurePrivateFile(file: string): void {
  closeSync(openSync(file, 'a', PRIVATE_FILE));
  narrow(file, PRIVATE_FILE);
}

/** Writes `file` owner-only: a new one from its first byte, an existing one narrowed before the text goes in. */
export function writePrivateFile(file: string, text: string): void {
  narrowIfExists(file);
  writeFileSync(file, text, { mode: PRIVATE_FILE });
}

/**
 * Narrows `file` to owner-only when it exists; for files another program creates (SQLite's -wal,
 * Temporal's database). Another process may delete such a file at any moment (SQLite removes its
 * -shm and -wal when the last connection closes), so one that vanishes is left alone.
 */
export function narrowIfExists(file: string): void {
  try {
    narrow(file, PRIVATE_FILE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Runs `start` (a spawn) under umask 077, so files the child creates are owner-only from their first byte. */
export function withPrivateUmask<T>(start: () => T): T {
  const previous = process.umask(0o077);
  try {
    return start();
  } finally {
    process.umask(previous);
  }
}

/** Only a path we own is changed: a shared directory someone else set up is theirs to decide. */
function narrow(target: string, mode: number): void {
  const stats = statSync(target);
  if (stats.uid === process.getuid?.() && (stats.mode & 0o777 & ~mode) !== 0) chmodSync(target, mode);
}

/** The secret in `file` (32 random bytes as hex, owner-only), made on first use; `what` names it in a refusal. */
export async function privateToken(file: string, what: string): Promise<string> {
  await createOnce(file, randomBytes(32).toString('hex') + '\n');
  const token = (await readFile(file, 'utf8')).trim();
  if (!token) throw new Error(`${file} is empty; delete it and canopy will make a new ${what}.`);
  return token;
}

/**
 * Written aside and linked into place, so a caller starting at the same moment reads a whole file or
 * makes its own link fail. Each caller's draft is its own, in this process too: a shared one could
 * be removed by the caller that linked it before another's link.
 */
async function createOnce(file: string, content: string): Promise<void> {
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.draft`;
  await writeFile(draft, content, { mode: PRIVATE_FILE });
  try {
    await link(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(draft, { force: true });
  }
}

/** Compares digests in constant time, so response timing tells a guesser nothing about the secret. */
export function sameSecret(given: string, secret: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(secret));
}
