// Real git repositories in temp directories, for tests of commit rights and HEAD tracking.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** A repository with one commit and an identity, so agents' commits work. */
export function tempGitRepo(prefix = 'canopy-repo-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 'canopy-test@example.invalid');
  git(dir, 'config', 'user.name', 'canopy test');
  writeFileSync(path.join(dir, 'README.md'), '# test repo\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  return dir;
}

export function headOf(dir: string): string {
  return git(dir, 'rev-parse', 'HEAD');
}
