// The git behind sandboxed runs: a run's own worktree of the workdir's repository on a branch of its
// own, what it holds, merging its branch back into the workdir, and removing it.
import { existsSync, realpathSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { CanopyError } from '../domain/errors';
import { git, gitOrThrow } from './run-git';
import { pathsOfStatus } from './workdir';

export type RepositoryRoot = { root: string; problem?: undefined } | { root?: undefined; problem: string };

/** The top of the repository `workdir` is in, or why a sandbox cannot be made of it (not a repository, no commit yet). */
export async function repositoryRoot(workdir: string): Promise<RepositoryRoot> {
  if (!existsSync(workdir)) return { problem: `${workdir} does not exist` };
  const top = await git(workdir, ['rev-parse', '--show-toplevel']);
  if (!top.ok) return { problem: `${workdir} is not inside a git repository` };
  const head = await git(workdir, ['rev-parse', '--verify', '--quiet', 'HEAD']);
  if (!head.ok) return { problem: `the git repository at ${top.stdout.trim()} has no commit yet` };
  return { root: top.stdout.trim() };
}

/** Where the run works inside the worktree: the workdir's place in its repository, under the worktree's top. */
export function workdirInWorktree(workdir: string, repositoryTop: string, worktree: string): string {
  return path.join(worktree, path.relative(realpathSync(repositoryTop), realpathSync(workdir)));
}

/**
 * Makes the worktree at `worktree` on a new branch from the workdir's HEAD. Idempotent, so a retried
 * activity finds what an earlier attempt made: the worktree already on the branch, or the branch
 * made but its worktree not.
 */
export async function addWorktree(workdir: string, worktree: string, branch: string): Promise<{ baseHead: string }> {
  if (existsSync(worktree)) {
    const onBranch = await git(worktree, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
    if (onBranch.ok && onBranch.stdout.trim() === branch) return { baseHead: await headOf(worktree) };
    throw new CanopyError('conflict', `${worktree} exists but is not the worktree of branch ${branch}; remove it, then run again.`);
  }
  await mkdir(path.dirname(worktree), { recursive: true, mode: 0o700 });
  // A worktree whose directory vanished is still registered, and would refuse the branch.
  await gitOrThrow(workdir, ['worktree', 'prune']);
  if (await branchExists(workdir, branch)) await gitOrThrow(workdir, ['worktree', 'add', '--quiet', worktree, branch]);
  else await gitOrThrow(workdir, ['worktree', 'add', '--quiet', '-b', branch, worktree, 'HEAD']);
  return { baseHead: await headOf(worktree) };
}

/** Removes the worktree and deletes its branch; what is already gone is skipped, so it may run again. */
export async function removeWorktree(workdir: string, worktree: string, branch: string): Promise<void> {
  if (existsSync(worktree)) await gitOrThrow(workdir, ['worktree', 'remove', '--force', worktree]);
  await gitOrThrow(workdir, ['worktree', 'prune']);
  if (await branchExists(workdir, branch)) await gitOrThrow(workdir, ['branch', '--quiet', '-D', branch]);
}

/** Paths with uncommitted changes, untracked files included (ignored ones not), all of them. */
export async function uncommittedPaths(dir: string): Promise<string[]> {
  return pathsOfStatus(await gitOrThrow(dir, ['--no-optional-locks', 'status', '--porcelain=v1', '-z']));
}

/** The branch checked out in `dir`, or null when its HEAD is detached. */
export async function checkedOutBranch(dir: string): Promise<string | null> {
  const result = await git(dir, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  return result.ok ? result.stdout.trim() : null;
}

/** Commits on `branch` that the workdir's HEAD does not have; null when the branch is gone. */
export async function commitsAhead(workdir: string, branch: string): Promise<number | null> {
  if (!(await branchExists(workdir, branch))) return null;
  return Number((await gitOrThrow(workdir, ['rev-list', '--count', `HEAD..refs/heads/${branch}`])).trim());
}

export type MergeResult = { merged: true; head: string } | { merged: false; conflicts: string[] };

/**
 * Merges `branch` into the workdir's checked-out branch: a fast-forward when possible, else a merge
 * commit with `message`. Conflicts are found first without touching the workdir (`git merge-tree`),
 * so a merge that would not apply cleanly changes nothing.
 */
export async function mergeBranch(workdir: string, branch: string, message: string): Promise<MergeResult> {
  const trial = await git(workdir, ['merge-tree', '--write-tree', '--name-only', '--no-messages', 'HEAD', `refs/heads/${branch}`]);
  if (!trial.ok) {
    const conflicts = [...new Set(trial.stdout.split('\n').slice(1).filter(Boolean))];
    if (conflicts.length) return { merged: false, conflicts };
    throw new Error(`git merge-tree failed in ${workdir}: ${trial.stderr.trim()}`);
  }
  // --ff over whatever merge.ff the repository sets: fast-forward when possible, else a merge commit.
  const merge = await git(workdir, ['merge', '--quiet', '--ff', '--no-edit', '-m', message, `refs/heads/${branch}`]);
  if (!merge.ok) {
    await git(workdir, ['merge', '--abort']);
    throw new Error(`git merge of ${branch} failed in ${workdir} and was aborted: ${merge.stderr.trim() || merge.stdout.trim()}`);
  }
  return { merged: true, head: await headOf(workdir) };
}

export async function headOf(dir: string): Promise<string> {
  return (await gitOrThrow(dir, ['rev-parse', 'HEAD'])).trim();
}

async function branchExists(workdir: string, branch: string): Promise<boolean> {
  return (await git(workdir, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])).ok;
}
