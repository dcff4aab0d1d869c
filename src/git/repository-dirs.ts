// The directories of the git repository a workdir is in, found from the files git leaves without
// running git: the top of its working tree (the workdir itself, or a directory above it) and, for a
// worktree, its own git directory and the main repository's common one, which it commits to.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** The working tree's top and the git directories outside it; none when `workdir` is not in a repository. */
export function repositoryDirs(workdir: string): string[] {
  for (let dir = path.resolve(workdir); ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, '.git');
    const kind = kindOf(dotGit);
    if (kind === 'directory') return [dir];
    if (kind === 'file') return [dir, ...worktreeGitDirs(dotGit)];
    if (path.dirname(dir) === dir) return [];
  }
}

/** A worktree's `.git` file names its git directory, whose `commondir` names the main repository's. */
function worktreeGitDirs(dotGitFile: string): string[] {
  const named = /^gitdir: (.+)$/m.exec(readOrEmpty(dotGitFile))?.[1]?.trim();
  if (!named) return [];
  const gitDir = path.resolve(path.dirname(dotGitFile), named);
  const common = readOrEmpty(path.join(gitDir, 'commondir')).trim();
  return common ? [gitDir, path.resolve(gitDir, common)] : [gitDir];
}

function kindOf(file: string): 'directory' | 'file' | null {
  try {
    return statSync(file).isDirectory() ? 'directory' : 'file';
  } catch {
    return null;
  }
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
