// git as the worktree modules run it: a git that never ends is stopped and thrown, not waited on.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { git } from '../../src/git/run-git';

it('stops a git that does not end within its time limit, and says which command and where', async () => {
  const bin = mkdtempSync(path.join(os.tmpdir(), 'canopy-hung-git-'));
  writeFileSync(path.join(bin, 'git'), '#!/bin/sh\nexec sleep 30\n');
  chmodSync(path.join(bin, 'git'), 0o755);
  const started = Date.now();
  await assert.rejects(
    git(bin, ['diff', 'HEAD'], { PATH: `${bin}:${process.env.PATH}` }, 300),
    /^Error: git diff HEAD did not end within 0.3 s in .*canopy-hung-git-.*, so it was stopped$/,
  );
  assert.ok(Date.now() - started < 10_000, 'it did not wait for git');
});
