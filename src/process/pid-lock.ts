// A lock naming the live process that holds something (a canopy home, while `canopy up` runs on
// it): a directory holding one empty file named `<pid>-<start ticks>`. It appears whole, by
// renaming a directory made aside, and that rename fails while another lock is there, so of two
// processes started at once exactly one takes it. A lock whose process is gone (that pid with that
// start no longer runs) is taken over. Taking over removes only the dead process's own name and
// then only an empty directory, so a process that judged a lock stale an instant before another
// took it over can never remove the new holder's lock.
import { mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { identify, stillRunning, type ProcessIdentity } from './process-identity';

export interface PidLock {
  release(): void;
}

/** The lock, taken; or the live process that holds it. */
export type LockAttempt = { taken: PidLock } | { holder: ProcessIdentity };

export function takePidLock(lockDir: string): LockAttempt {
  const mine = entryName(identify(process.pid) ?? { pid: process.pid, startTicks: null });
  for (;;) {
    if (placeLock(lockDir, mine)) return { taken: { release: () => removeEntry(lockDir, mine) } };
    const entries = readEntries(lockDir);
    const holder = entries.map(parseEntry).find((identity) => identity !== null && stillRunning(identity));
    if (holder) return { holder };
    for (const entry of entries) removeEntry(lockDir, entry);
  }
}

/** Renames a lock made aside into place: that succeeds onto nothing or onto an empty directory a takeover left. */
function placeLock(lockDir: string, name: string): boolean {
  const draft = `${lockDir}.${process.pid}.draft`;
  rmSync(draft, { recursive: true, force: true });
  mkdirSync(draft, { mode: 0o700 });
  writeFileSync(path.join(draft, name), '', { mode: 0o600 });
  try {
    renameSync(draft, lockDir);
    return true;
  } catch (error) {
    if (isOneOf(error, 'ENOTEMPTY', 'EEXIST')) return false;
    throw error;
  } finally {
    rmSync(draft, { recursive: true, force: true });
  }
}

/** Removes `name` from the lock, then the lock if that left it empty (another lock put there since is never empty). */
function removeEntry(lockDir: string, name: string): void {
  try {
    unlinkSync(path.join(lockDir, name));
    rmdirSync(lockDir);
  } catch (error) {
    if (!isOneOf(error, 'ENOENT', 'ENOTEMPTY', 'EEXIST')) throw error;
  }
}

function readEntries(lockDir: string): string[] {
  try {
    return readdirSync(lockDir);
  } catch (error) {
    if (isOneOf(error, 'ENOENT')) return [];
    throw error;
  }
}

function entryName(identity: ProcessIdentity): string {
  return identity.startTicks === null ? String(identity.pid) : `${identity.pid}-${identity.startTicks}`;
}

/** The process an entry names, or null for a name that names none (it counts as stale, like a dead holder's). */
function parseEntry(name: string): ProcessIdentity | null {
  const match = /^(\d+)(?:-(\d+))?$/.exec(name);
  return match ? { pid: Number(match[1]), startTicks: match[2] ?? null } : null;
}

function isOneOf(error: unknown, ...codes: string[]): boolean {
  return codes.includes((error as NodeJS.ErrnoException).code ?? '');
}
