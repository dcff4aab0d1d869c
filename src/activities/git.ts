// Git facts the engine needs: HEAD of a workdir, and whether it is a clean repository.
import { statSync } from 'node:fs';
import path from 'node:path';
import { simpleGit } from 'simple-git';
import { launchCaptured } from './launcher';
import { CanopyError } from '../domain/errors';

/**
 * HEAD commit of the workdir, or '' when it is not inside a git repository or has no commit yet.
 * Read twice per node step, so it skips git entirely outside a repository and otherwise calls
 * `git rev-parse` directly through the launcher, which costs a third of the same call through
 * simple-git and spares the worker a fork of its own large process.
 */
export async function readHead(workdir: string): Promise<string> {
  if (!insideRepository(workdir)) return '';
  try {
    const { exitCode, stdout } = await launchCaptured('git', ['rev-parse', '--verify', '--quiet', 'HEAD'], {
      cwd: workdir,
      env: process.env,
    });
    return exitCode === 0 ? stdout.trim() : '';
  } catch {
    return '';
  }
}

export async function repositoryState(workdir: string): Promise<{ isRepo: boolean; clean: boolean }> {
  try {
    const git = simpleGit({ baseDir: workdir });
    if (!(await git.checkIsRepo())) return { isRepo: false, clean: false };
    return { isRepo: true, clean: (await git.status()).isClean() };
  } catch {
    return { isRepo: false, clean: false };
  }
}

/** A `.git` entry (directory, or file for worktrees) in the workdir or one of its parents. */
function insideRepository(workdir: string): boolean {
  if (statSync(workdir, { throwIfNoEntry: false })?.isDirectory() === false) {
    throw new CanopyError('invalid_input', `workdir: ${workdir} is not a directory; point the loop at a directory with loop_update.`);
  }
  for (let dir = path.resolve(workdir); ; dir = path.dirname(dir)) {
    if (statSync(path.join(dir, '.git'), { throwIfNoEntry: false })) return true;
    if (path.dirname(dir) === dir) return false;
  }
}
