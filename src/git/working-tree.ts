// The workdir's files as they stand, untracked ones too (ignored ones not), as a git tree, and what
// changed in them since a commit; written through a copy of the index, so the real one stays as it was.
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gitOrThrow } from './run-git';

/** The tree of every file under `dir`'s repository as it stands, written through a copy of its index so the real one stays as it was. */
export async function treeOfWorkingFiles(dir: string): Promise<string> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'canopy-index-'));
  try {
    const indexFile = path.join(scratch, 'index');
    const realIndex = (await gitOrThrow(dir, ['rev-parse', '--path-format=absolute', '--git-path', 'index'])).trim();
    // Starting from the real index keeps its file stats, so only changed files are read again.
    if (existsSync(realIndex)) await copyFile(realIndex, indexFile);
    const env = { GIT_INDEX_FILE: indexFile };
    await gitOrThrow(dir, ['add', '--all', '--', ':/'], env);
    return (await gitOrThrow(dir, ['write-tree'], env)).trim();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** `git diff --stat` of every file as it stands against `start`, new untracked files included. */
export async function changesSince(dir: string, start: string): Promise<string> {
  const tree = await treeOfWorkingFiles(dir);
  return gitOrThrow(dir, ['diff', '--no-color', '--no-ext-diff', '--stat', start, tree]);
}
