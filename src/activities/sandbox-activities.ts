// The activity that gives a sandboxed run its worktree: made on the workdir's host, recorded in the store.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import { sandboxBranch } from '../domain/sandbox';
import { getSandbox, insertSandbox, sandboxOfRun, updateSandbox } from '../store/sandboxes-repository';
import type { OpenSandboxInput, OpenedSandbox } from '../contract';
import { addWorktree, repositoryRoot, workdirInWorktree } from '../git/worktrees';
import type { ActivityDeps } from './deps';

/** Where a run's worktree lives: the worker's canopy home, outside every repository. */
export const sandboxPath = (home: string, loopRunId: string): string => path.join(home, 'sandboxes', loopRunId);

/** The top of the workdir's repository; a workdir outside one, or in one with no commit, fails for good, saying why and what to do. */
export async function requireRepository(workdir: string, whoNeedsIt: string, orElse: string): Promise<string> {
  const repository = await repositoryRoot(workdir);
  if (repository.root !== undefined) return repository.root;
  throw ApplicationFailure.nonRetryable(
    `${whoNeedsIt} the workdir in a git repository with a commit, but ${repository.problem}; ` +
      `commit there (git init && git add -A && git commit), or ${orElse}.`,
    'invalid_config',
  );
}

export function sandboxActivities(deps: ActivityDeps) {
  return {
    /**
     * The run's sandbox: the one it already has (a retry, a run continued as new), the one a failed
     * run worked in when it is continued (`sandboxId`), or a new worktree on its own branch.
     */
    async openSandbox(input: OpenSandboxInput): Promise<OpenedSandbox> {
      const root = await requireRepository(input.workdir, 'A sandboxed run needs', 'run without sandbox');
      const existing = input.sandboxId ? await getSandbox(deps.db, input.sandboxId) : await sandboxOfRun(deps.db, input.loopRunId);
      if (existing && existing.status !== 'active') {
        throw ApplicationFailure.nonRetryable(
          `Sandbox ${existing.id} was ${existing.status}; reset the loop and run it again.`,
          'invalid_config',
        );
      }
      const branch = existing?.branch ?? sandboxBranch(input.loopRunId);
      const worktree = existing?.path ?? sandboxPath(deps.home, input.loopRunId);
      const { baseHead } = await addWorktree(input.workdir, worktree, branch);
      const runWorkdir = workdirInWorktree(input.workdir, root, worktree);
      // A workdir git tracks nothing in (an empty directory) is not checked out in the worktree.
      await mkdir(runWorkdir, { recursive: true });
      const opened = (sandboxId: string) => ({ sandboxId, workdir: runWorkdir });
      if (existing) {
        if (existing.loop_run_id !== input.loopRunId) await updateSandbox(deps.db, existing.id, { loop_run_id: input.loopRunId });
        return opened(existing.id);
      }
      const created = await insertSandbox(deps.db, {
        loop_id: input.loopId,
        loop_run_id: input.loopRunId,
        branch,
        path: worktree,
        base_head: baseHead,
        host: deps.hostId,
      });
      return opened(created.id);
    },
  };
}
