// The git behind isolated ensemble members: a commit of the workdir's tree as it stands (HEAD plus
// uncommitted changes), a detached worktree per member that starts from it, each member's diff
// against it, and removing the worktrees. The workdir, its index and its branches are never touched.
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { git, gitOrThrow } from './run-git';
import { treeOfWorkingFiles } from './working-tree';
import { headOf } from './worktrees';

/** Who the starting commit is by: it is never on a branch, so only `git log` of a member's worktree shows it. */
const SNAPSHOT_AUTHOR = {
  GIT_AUTHOR_NAME: 'canopy',
  GIT_AUTHOR_EMAIL: 'canopy@localhost',
  GIT_COMMITTER_NAME: 'canopy',
  GIT_COMMITTER_EMAIL: 'canopy@localhost',
};

export interface StartingTree {
  /** The workdir's HEAD, which each member's worktree has checked out. */
  head: string;
  /** A commit (child of `head`) of every file as it stands, untracked ones too, ignored ones not. */
  start: string;
}

/** Records the workdir's tree as it stands in a commit of its own, on no branch. */
export async function snapshotTree(workdir: string): Promise<StartingTree> {
  const head = await headOf(workdir);
  const tree = await treeOfWorkingFiles(workdir);
  const message = 'canopy: the tree ensemble members start from';
  const start = (await gitOrThrow(workdir, ['commit-tree', tree, '-p', head, '-m', message], SNAPSHOT_AUTHOR)).trim();
  return { head, start };
}

/**
 * Makes a worktree at `worktree` whose HEAD is `tree.head` (detached) and whose files are those of
 * `tree.start`, so the workdir's uncommitted changes show there as uncommitted too. One already
 * made is kept as it is: a retried activity, or a continued run whose members work on in it.
 */
export async function openMemberWorktree(workdir: string, worktree: string, tree: StartingTree): Promise<void> {
  const ready = `${worktree}.ready`;
  if (existsSync(ready)) return;
  // Left half made by an attempt that died: made again from the start.
  await removeMemberWorktree(workdir, worktree);
  await mkdir(path.dirname(worktree), { recursive: true, mode: 0o700 });
  await gitOrThrow(workdir, ['worktree', 'add', '--quiet', '--detach', worktree, tree.head]);
  await gitOrThrow(worktree, ['read-tree', '--reset', '-u', tree.start]);
  await gitOrThrow(worktree, ['reset', '--quiet']);
  await writeFile(ready, '');
}

/** What a member changed against the tree it started from, committed or not: a stat, then the patch. */
export async function diffAgainstStart(worktree: string, start: string): Promise<string> {
  const tree = await treeOfWorkingFiles(worktree);
  return gitOrThrow(worktree, ['diff', '--no-color', '--no-ext-diff', '--stat', '--patch', start, tree]);
}

/** Removes the worktree; what is already gone is skipped, so it may run again. */
export async function removeMemberWorktree(workdir: string, worktree: string): Promise<void> {
  if (existsSync(worktree)) {
    const removed = await git(workdir, ['worktree', 'remove', '--force', worktree]);
    // A directory git no longer knows as a worktree is only files.
    if (!removed.ok) await rm(worktree, { recursive: true, force: true });
  }
  await rm(`${worktree}.ready`, { force: true });
  await gitOrThrow(workdir, ['worktree', 'prune']);
}
