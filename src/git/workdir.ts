// Git facts of a workdir: its HEAD, its uncommitted paths, and whether it is a clean repository.
import { statSync } from 'node:fs';
import path from 'node:path';
import { launchCaptured, LaunchTimeout } from '../process/launcher';
import { CanopyError } from '../domain/errors';
import { headFromFiles } from './head-files';
import { GIT_TIMEOUT_MS } from './run-git';

/**
 * HEAD commit of the workdir, or '' when it is not inside a git repository or has no commit yet.
 * Read twice per node step, so it skips git entirely outside a repository, reads the repository's
 * files where they give a certain answer, and otherwise calls `git rev-parse` through the launcher,
 * which spares the worker a fork of its own large process.
 */
export async function readHead(workdir: string): Promise<string> {
  if (!insideRepository(workdir)) return '';
  const fromFiles = headFromFiles(workdir);
  if (fromFiles !== null) return fromFiles;
  try {
    const { exitCode, stdout } = await launchCaptured('git', ['rev-parse', '--verify', '--quiet', 'HEAD'], {
      cwd: workdir,
      env: process.env,
      timeoutMs: GIT_TIMEOUT_MS,
    });
    return exitCode === 0 ? stdout.trim() : '';
  } catch (error) {
    // A HEAD that could not be read in time is unknown, not absent: taking it for '' would misjudge commit rights.
    if (error instanceof LaunchTimeout) throw error;
    return '';
  }
}

/** At most this many dirty paths are kept, so a tree with thousands of changes does not swell every node run. */
const DIRTY_PATHS_KEPT = 1000;

/**
 * The paths `git status` reports changed, staged or untracked (an untracked directory as one
 * path), in its order; [] when clean, null when the workdir is not in a repository or git fails.
 * It runs beside agents that commit in the same tree, so it must not take the index lock a plain
 * `git status` takes to refresh stale entries: that lock makes their `git add` or `git commit` fail.
 */
export async function dirtyPaths(workdir: string): Promise<string[] | null> {
  if (!insideRepository(workdir)) return null;
  try {
    const { exitCode, stdout } = await launchCaptured('git', ['--no-optional-locks', 'status', '--porcelain=v1', '-z'], {
      cwd: workdir,
      env: process.env,
      timeoutMs: GIT_TIMEOUT_MS,
    });
    return exitCode === 0 ? pathsOfStatus(stdout).slice(0, DIRTY_PATHS_KEPT) : null;
  } catch {
    return null;
  }
}

/** `XY path` entries separated by NUL; a rename or copy is followed by its source path, which is skipped. */
export function pathsOfStatus(porcelain: string): string[] {
  const entries = porcelain.split('\0').filter(Boolean);
  const paths: string[] = [];
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index];
    paths.push(entry.slice(3));
    if (entry[0] === 'R' || entry[0] === 'C') index++;
  }
  return paths;
}

export async function repositoryState(workdir: string): Promise<{ isRepo: boolean; clean: boolean }> {
  const dirty = await dirtyPaths(workdir).catch(() => null);
  return dirty === null ? { isRepo: false, clean: false } : { isRepo: true, clean: dirty.length === 0 };
}

/** A `.git` entry (directory, or file for worktrees) in the workdir or one of its parents. */
function insideRepository(workdir: string): boolean {
  return repositoryRoot(workdir) !== null;
}

/** The nearest directory holding a `.git` entry, from the workdir up: the repository's root, or null outside one. */
export function repositoryRoot(workdir: string): string | null {
  if (statSync(workdir, { throwIfNoEntry: false })?.isDirectory() === false) {
    throw new CanopyError('invalid_input', `workdir: ${workdir} is not a directory; point the loop at a directory with loop_update.`);
  }
  for (let dir = path.resolve(workdir); ; dir = path.dirname(dir)) {
    if (statSync(path.join(dir, '.git'), { throwIfNoEntry: false })) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}
