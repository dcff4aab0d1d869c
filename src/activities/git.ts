// Git facts the engine needs: HEAD of a workdir, and whether it is a clean repository.
import { simpleGit } from 'simple-git';

/** HEAD commit of the workdir, or '' when it is not a git repository or has no commit yet. */
export async function readHead(workdir: string): Promise<string> {
  try {
    return (await simpleGit({ baseDir: workdir }).revparse(['HEAD'])).trim();
  } catch {
    return '';
  }
}

export async function repositoryState(workdir: string): Promise<{ isRepo: boolean; clean: boolean }> {
  try {
    const git = simpleGit({ baseDir: workdir });
    if (!(await git.checkIsRepo())) return { isRepo: false, clean: false };
    return { isRepo: true, clean: (await git.status()).isClean() };
  } catch {
    return { isRepo: false, clean: false };
  }
}
