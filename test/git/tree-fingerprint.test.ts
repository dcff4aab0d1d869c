// The no-progress watchdog's fingerprint of a workdir's tree: HEAD and the content of what is uncommitted.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { treeFingerprint } from '../../src/git/tree-fingerprint';
import { git, tempGitRepo } from '../helpers/git';

it('changes with the content of uncommitted files, not only with their paths, and stays put otherwise', async () => {
  const repo = tempGitRepo();
  const clean = await treeFingerprint(repo);
  assert.match(clean ?? '', /^[0-9a-f]{64}$/);
  assert.equal(await treeFingerprint(repo), clean, 'read twice, the same');

  writeFileSync(path.join(repo, 'notes.txt'), 'one\n');
  const one = await treeFingerprint(repo);
  assert.notEqual(one, clean, 'an untracked file');
  writeFileSync(path.join(repo, 'notes.txt'), 'one\n');
  assert.equal(await treeFingerprint(repo), one, 'the same content written again');
  writeFileSync(path.join(repo, 'notes.txt'), 'two\n');
  const two = await treeFingerprint(repo);
  assert.notEqual(two, one, 'the same path with other content');
  git(repo, 'add', 'notes.txt');
  assert.equal(await treeFingerprint(repo), two, 'staging changes no content');

  writeFileSync(path.join(repo, 'README.md'), '# edited\n');
  const edited = await treeFingerprint(repo);
  assert.notEqual(edited, two, 'a tracked file edited');
  rmSync(path.join(repo, 'README.md'));
  assert.notEqual(await treeFingerprint(repo), edited, 'a tracked file deleted');
});

it('changes with HEAD, and reads the same from a subdirectory of the repository', async () => {
  const repo = tempGitRepo();
  const sub = path.join(repo, 'packages', 'web');
  mkdirSync(sub, { recursive: true });
  writeFileSync(path.join(sub, 'index.js'), 'x\n');
  writeFileSync(path.join(repo, 'top.txt'), 'y\n');
  const before = await treeFingerprint(repo);
  assert.equal(await treeFingerprint(sub), before);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'both');
  const committed = await treeFingerprint(repo);
  assert.notEqual(committed, before);
  git(repo, 'commit', '-q', '--allow-empty', '-m', 'empty');
  assert.notEqual(await treeFingerprint(repo), committed, 'a new commit with the same tree');
});

it('is null outside a git repository', async () => {
  assert.equal(await treeFingerprint(mkdtempSync(path.join(os.tmpdir(), 'canopy-plain-'))), null);
});
