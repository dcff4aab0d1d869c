// Where the git metadata a workdir commits to lives when it is not inside the workdir: the `.git` of a
// repository the workdir is a subdirectory of, or, for a worktree, its own git directory and the main
// repository's common one. Read from the files git leaves, without running git.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** The directories holding `workdir`'s git metadata outside it; none when it is not in a repository. */
export function gitMetadataDirs(workdir: string): string[] {
  for (let dir = path.resolve(workdir); ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, '.git');
    const kind = kindOf(dotGit);
    if (kind === 'directory') return dir === path.resolve(workdir) ? [] : [dotGit];
    if (kind === 'file') return worktreeDirs(dotGit);
    if (path.dirname(dir) === dir) return [];
  }
}

/** A worktree's `.git` file names its git directory, whose `commondir` names the main repository's. */
function worktreeDirs(dotGitFile: string): string[] {
  const named = /^gitdir: (.+)$/m.exec(readOrEmpty(dotGitFile))?.[1]?.trim();
  if (!named) return [];
  const gitDir = path.resolve(path.dirname(dotGitFile), named);
  const common = readOrEmpty(path.join(gitDir, 'commondir')).trim();
  return common ? [gitDir, path.resolve(gitDir, common)] : [gitDir];
}

function kindOf(file: string): 'directory' | 'file' | null {
  try {
    const stat = statSync(file);
    return stat.isDirectory() ? 'directory' : 'file';
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
