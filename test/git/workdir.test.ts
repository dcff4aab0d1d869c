// HEAD and uncommitted paths of a workdir as the engine reads them around every node.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { dirtyPaths, readHead, repositoryState } from '../../src/git/workdir';
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

it("reads the dirty paths without rewriting the index, whose lock an agent's git add or commit beside it needs", async () => {
  const repo = tempGitRepo();
  writeFileSync(path.join(repo, 'new.txt'), 'new\n');
  const index = path.join(repo, '.git', 'index');
  const staleEntry = () => utimesSync(path.join(repo, 'README.md'), new Date(), new Date(Date.now() + 5000));
  const indexWritten = () => statSync(index, { bigint: true }).mtimeNs;

  staleEntry();
  const before = indexWritten();
  assert.deepEqual(await dirtyPaths(repo), ['new.txt']);
  assert.equal(indexWritten(), before, 'the index was not rewritten, so its lock was never taken');

  git(repo, 'status', '--porcelain');
  assert.notEqual(indexWritten(), before, 'a plain git status would have locked and rewritten it');
});
