// HEAD read from the repository's files must be what `git rev-parse --verify HEAD` says, in every
// layout it answers for, and must leave to git every layout it cannot be sure of.
import assert from 'node:assert/strict';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { headFromFiles } from '../../src/git/head-files';
import { readHead } from '../../src/git/workdir';
import { git, headOf, tempGitRepo } from '../helpers/git';

/** What git itself says HEAD is, '' where it names no commit. */
function gitsHead(workdir: string): string {
  try {
    return git(workdir, 'rev-parse', '--verify', '--quiet', 'HEAD').trim();
  } catch {
    return '';
  }
}

function assertReadsAsGit(workdir: string, layout: string): void {
  const fromFiles = headFromFiles(workdir);
  assert.notEqual(fromFiles, null, `${layout}: read from the files`);
  assert.equal(fromFiles, gitsHead(workdir), layout);
}

function commit(repo: string, message: string): void {
  git(repo, '-c', 'user.email=canopy-test@example.invalid', '-c', 'user.name=canopy test', 'commit', '-q', '--allow-empty', '-m', message);
}

it('reads HEAD as git does on a branch, detached, packed, through a symbolic branch, unborn, and in worktrees', () => {
  const repo = tempGitRepo();
  assertReadsAsGit(repo, 'a branch with a loose ref');

  commit(repo, 'second');
  git(repo, 'pack-refs', '--all');
  assertReadsAsGit(repo, 'a branch only in packed-refs');
  commit(repo, 'third');
  assertReadsAsGit(repo, 'a loose ref newer than its packed entry');

  git(repo, 'symbolic-ref', 'refs/heads/alias', 'refs/heads/main');
  git(repo, 'symbolic-ref', 'HEAD', 'refs/heads/alias');
  assertReadsAsGit(repo, 'HEAD through a symbolic branch');
  git(repo, 'symbolic-ref', 'HEAD', 'refs/heads/main');

  git(repo, 'checkout', '-q', '--detach', 'HEAD~1');
  assertReadsAsGit(repo, 'a detached HEAD');
  git(repo, 'checkout', '-q', 'main');

  git(repo, 'checkout', '-q', '--orphan', 'fresh');
  assert.equal(headFromFiles(repo), '', 'an unborn branch');
  assert.equal(gitsHead(repo), '');
  git(repo, 'checkout', '-q', 'main');

  const worktrees = mkdtempSync(path.join(os.tmpdir(), 'canopy-wt-'));
  const side = path.join(worktrees, 'side');
  git(repo, 'worktree', 'add', '-q', '-b', 'side', side);
  commit(side, 'on the side');
  assertReadsAsGit(side, 'a linked worktree on its own branch');
  assert.notEqual(headFromFiles(side), headFromFiles(repo));
  const detached = path.join(worktrees, 'detached');
  git(repo, 'worktree', 'add', '-q', '--detach', detached, 'HEAD~1');
  assertReadsAsGit(detached, 'a detached linked worktree');
  git(repo, 'pack-refs', '--all');
  assertReadsAsGit(side, "a linked worktree whose branch is packed in the main repository's packed-refs");
});

it('reads HEAD as git does in a repository whose git directory lives elsewhere, and in a SHA-256 repository', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'canopy-separate-'));
  const gitDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'canopy-gitdir-')), 'repo.git');
  git(work, 'init', '-q', '-b', 'main', `--separate-git-dir=${gitDir}`);
  commit(work, 'first');
  assertReadsAsGit(work, 'a .git file naming a separate git directory');

  const sha256 = mkdtempSync(path.join(os.tmpdir(), 'canopy-sha256-'));
  git(sha256, 'init', '-q', '-b', 'main', '--object-format=sha256');
  commit(sha256, 'first');
  assert.equal(headOf(sha256).length, 64);
  assertReadsAsGit(sha256, 'a SHA-256 repository');
});

it('leaves to git what the files cannot settle, and readHead still gives git’s answer there', async () => {
  const repo = tempGitRepo();
  const sub = path.join(repo, 'packages');
  mkdirSync(sub);
  assert.equal(headFromFiles(sub), null, 'a workdir below the top: git finds the repository');
  assert.equal(await readHead(sub), headOf(repo));

  assert.equal(headFromFiles(repo, { GIT_DIR: path.join(repo, '.git') }), null, 'GIT_DIR in the environment');

  mkdirSync(path.join(repo, '.git', 'reftable'));
  assert.equal(headFromFiles(repo), null, 'reftable reference storage');
  rmSync(path.join(repo, '.git', 'reftable'), { recursive: true });

  const head = path.join(repo, '.git', 'HEAD');
  writeFileSync(head, 'not a reference\n');
  assert.equal(headFromFiles(repo), null, 'a HEAD it does not recognise');
  writeFileSync(head, 'ref: refs/heads/main\n');

  const foreign = tempGitRepo();
  chownSync(path.join(foreign, '.git'), 65534, 65534);
  assert.equal(headFromFiles(foreign), null, "a repository another user owns, which git refuses ('dubious ownership')");
  assert.equal(await readHead(foreign), gitsHead(foreign));
});

it('reads at most five references to resolve HEAD, as git does', () => {
  const repo = tempGitRepo();
  for (let i = 1; i <= 6; i++) git(repo, 'symbolic-ref', `refs/heads/link-${i}`, i === 1 ? 'refs/heads/main' : `refs/heads/link-${i - 1}`);
  git(repo, 'symbolic-ref', 'HEAD', 'refs/heads/link-3');
  assertReadsAsGit(repo, 'HEAD, three links, then the branch');
  git(repo, 'symbolic-ref', 'HEAD', 'refs/heads/link-4');
  assert.equal(headFromFiles(repo), null, 'one link more');
  assert.equal(gitsHead(repo), '', 'git gives up there too');
});
