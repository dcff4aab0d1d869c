// Whether a file system has room left, read after the fact: a process whose output filled it could
// write neither why it failed nor, through its supervisor, its exit status, but the file system
// still says it is full.
import { statfsSync } from 'node:fs';

/** Below this many bytes free, a file system counts as full: a write of a block or two fails there. */
export const FULL_BELOW_BYTES = 64 * 1024;

/** Bytes this process may still write on the file system holding `target` (root also the blocks kept for it); null when unreadable. */
export function bytesFree(target: string): number | null {
  try {
    const stats = statfsSync(target);
    return (process.getuid?.() === 0 ? stats.bfree : stats.bavail) * stats.bsize;
  } catch {
    return null;
  }
}

/** The bytes free on the file system holding `target` when it is full, else null. */
export function fullFileSystem(target: string): number | null {
  const free = bytesFree(target);
  return free !== null && free < FULL_BELOW_BYTES ? free : null;
}
