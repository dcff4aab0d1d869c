// A workdir's tree as one hash: HEAD, and the content of every path `git status` reports changed,
// staged or untracked. Content, not paths: a file edited differently than before hashes differently.
// It costs one `git status` and reading only the changed files, whatever the size of the tree.
import { createHash } from 'node:crypto';
import { lstat, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { launchCaptured } from '../process/launcher';
import { GIT_TIMEOUT_MS } from './run-git';
import { pathsOfStatus, readHead, repositoryRoot } from './workdir';

/** The tree's fingerprint; null when the workdir is not in a git repository or git could not say what changed. */
export async function treeFingerprint(workdir: string): Promise<string | null> {
  const root = repositoryRoot(workdir);
  if (root === null) return null;
  // Without the index lock, as for the dirty paths: agents may be committing in the same tree.
  const status = await launchCaptured('git', ['--no-optional-locks', 'status', '--porcelain=v1', '-z', '--untracked-files=all'], {
    cwd: workdir,
    env: process.env,
    timeoutMs: GIT_TIMEOUT_MS,
  });
  if (status.exitCode !== 0) return null;
  const hash = createHash('sha256').update(await readHead(workdir));
  // Porcelain paths are relative to the repository's root, whatever directory git ran in.
  for (const changed of pathsOfStatus(status.stdout).sort()) hash.update(`\0${changed}\0${await contentOf(path.join(root, changed))}`);
  return hash.digest('hex');
}

/** What stands at `file` now: its content's hash, a link's target, a directory (a nested repository), or nothing. */
async function contentOf(file: string): Promise<string> {
  const stat = await lstat(file).catch(() => null);
  if (!stat) return 'absent';
  if (stat.isSymbolicLink()) return `link ${await readlink(file)}`;
  if (stat.isDirectory()) return 'directory';
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}
