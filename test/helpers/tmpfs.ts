// A small file system of its own (a tmpfs) that a test can fill, as a full disk: only root may
// mount one, and only where the kernel lets it (not in every container).
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bytesFree } from '../../src/process/disk-space';

let probe: string | undefined | null = null;

/** Why a tmpfs cannot be mounted here, or undefined when it can. */
export function tmpfsUnavailable(): string | undefined {
  if (probe !== null) return probe;
  try {
    unmount(mount('1m'));
    probe = undefined;
  } catch (error) {
    probe = `mount -t tmpfs is refused here (${(error as Error).message.split('\n')[0]}); run as root where mounts are allowed`;
  }
  return probe;
}

/** Runs `work` on a fresh tmpfs of `size` (as mount's `size=` option, e.g. 30m), unmounted and removed however `work` ends. */
export async function onTmpfs<T>(size: string, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = mount(size);
  try {
    return await work(dir);
  } finally {
    unmount(dir);
  }
}

function mount(size: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'canopy-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return dir;
}

function unmount(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'pipe' });
  } catch {
    // Something still holds a file there (a process the test left): detach it now, freed once let go.
    execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
  }
  rmSync(dir, { recursive: true, force: true });
}

/** Fills the file system holding `dir` with a file of zeros until only `bytes` are free; returns the file. */
export function leaveFree(dir: string, bytes: number): string {
  const ballast = path.join(dir, 'ballast');
  const chunk = Buffer.alloc(1024 * 1024);
  const fd = openSync(ballast, 'a');
  try {
    for (let left = bytesFree(dir)! - bytes; left > 0; left -= chunk.length) writeSync(fd, chunk, 0, Math.min(left, chunk.length));
  } finally {
    closeSync(fd);
  }
  return ballast;
}
