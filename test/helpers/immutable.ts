// An immutable directory (chattr +i), which refuses new entries and the removal of old ones as a
// read-only or full disk would. Only root can set the flag, on filesystems that support it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let probe: string | undefined | null = null;

/** Why directories cannot be made immutable here, or undefined when they can. */
export function immutabilityUnavailable(): string | undefined {
  if (probe !== null) return probe;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'canopy-immutable-'));
  try {
    execFileSync('chattr', ['+i', dir], { stdio: 'pipe' });
    try {
      mkdirSync(path.join(dir, 'refused'));
      probe = `chattr +i did not stop a new entry in ${os.tmpdir()}`;
    } catch {
      probe = undefined;
    } finally {
      execFileSync('chattr', ['-i', dir]);
    }
  } catch (error) {
    probe = `chattr +i does not work in ${os.tmpdir()} (${(error as Error).message.split('\n')[0]}); run as root on a filesystem that supports it`;
  }
  rmSync(dir, { recursive: true, force: true });
  return probe;
}

/** Runs `work` while `dir` is immutable; the flag is removed however `work` ends. */
export async function whileImmutable<T>(dir: string, work: () => Promise<T>): Promise<T> {
  execFileSync('chattr', ['+i', dir]);
  try {
    return await work();
  } finally {
    execFileSync('chattr', ['-i', dir]);
  }
}
