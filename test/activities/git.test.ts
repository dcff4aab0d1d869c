// HEAD of a workdir as the engine reads it around every node.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { readHead, repositoryState } from '../../src/activities/git';
import { git, headOf, tempGitRepo } from '../helpers/git';

it('reads HEAD in a repository and in a subdirectory of one', async () => {
  const repo = tempGitRepo();
  const sub = path.join(repo, 'packages', 'web');
  mkdirSync(sub, { recursive: true });
  assert.equal(await readHead(repo), headOf(repo));
  assert.equal(await readHead(sub), headOf(repo));
});

it('reads the HEAD of a worktree, whose .git is a file', async () => {
  const repo = tempGitRepo();
  const worktree = path.join(mkdtempSync(path.join(os.tmpdir(), 'canopy-wt-')), 'wt');
  git(repo, 'worktree', 'add', '-q', '-b', 'side', worktree);
  git(worktree, 'commit', '-q', '--allow-empty', '-m', 'on the side');
  assert.equal(await readHead(worktree), headOf(worktree));
  assert.notEqual(await readHead(worktree), await readHead(repo));
});

it('gives an empty HEAD outside git and in a repository without commits', async () => {
  const plain = mkdtempSync(path.join(os.tmpdir(), 'canopy-plain-'));
  assert.equal(await readHead(plain), '');
  const empty = mkdtempSync(path.join(os.tmpdir(), 'canopy-empty-'));
  git(empty, 'init', '-q');
  assert.equal(await readHead(empty), '');
  assert.deepEqual(await repositoryState(plain), { isRepo: false, clean: false });
  assert.deepEqual(await repositoryState(tempGitRepo()), { isRepo: true, clean: true });
});
