// The directories of the repository a workdir is in, as confinement keeps them: the working tree's top
// and, for a worktree, its git directory and the main repository's.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { repositoryDirs } from '../../src/git/repository-dirs';
import { git, tempGitRepo } from '../helpers/git';

describe('repository directories of a workdir', () => {
  it('is the top of a repository, from the top or from a directory below it', () => {
    const repo = tempGitRepo();
    mkdirSync(path.join(repo, 'app', 'web'), { recursive: true });
    assert.deepEqual(repositoryDirs(repo), [repo]);
    assert.deepEqual(repositoryDirs(path.join(repo, 'app', 'web')), [repo]);
  });

  it("adds a worktree's own git directory and the main repository's", () => {
    const repo = tempGitRepo();
    const worktree = path.join(mkdtempSync(path.join(os.tmpdir(), 'canopy-wt-')), 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'other', worktree);
    mkdirSync(path.join(worktree, 'app'));
    const gitDir = path.join(realpathSync(repo), '.git');
    const expected = [worktree, path.join(gitDir, 'worktrees', 'wt'), gitDir];
    assert.deepEqual(repositoryDirs(worktree), expected);
    assert.deepEqual(repositoryDirs(path.join(worktree, 'app')), expected);
  });

  it('is nothing outside a repository', () => {
    assert.deepEqual(repositoryDirs(mkdtempSync(path.join(os.tmpdir(), 'canopy-plain-'))), []);
  });
});
