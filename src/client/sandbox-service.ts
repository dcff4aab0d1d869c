// Sandboxes of sandboxed runs: list them, land one (merge its branch into the workdir's), discard one.
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { commitsAhead, checkedOutBranch, mergeBranch, removeWorktree, repositoryRoot, uncommittedPaths } from '../git/worktrees';
import { Id } from '../domain/common';
import { CanopyError, notFound, parseOrThrow } from '../domain/errors';
import type { Loop } from '../domain/loop';
import type { Sandbox } from '../domain/sandbox';
import { getLoopRun, latestLoopRun } from '../store/loop-runs-repository';
import { getLoop, listLoops } from '../store/loops-repository';
import { getSandbox, listSandboxes, sandboxOfRun, updateSandbox } from '../store/sandboxes-repository';
import { onThisHost, type ClientContext } from './context';

export interface SandboxView extends Sandbox {
  /** The status of the loop run that works in it (running, completed, failed…). */
  run_status: string | null;
  /** Commits on its branch the workdir's checked-out branch lacks; null once landed or discarded, or when it is on another host. */
  commits_ahead: number | null;
}

export const ListSandboxesRequest = z.strictObject({
  loop_id: Id.optional().describe('Only this loop’s sandboxes'),
});

export async function listSandboxViews(ctx: ClientContext, request: unknown = {}): Promise<{ sandboxes: SandboxView[] }> {
  const { loop_id } = parseOrThrow(ListSandboxesRequest, request, 'The sandbox list');
  if (loop_id && !(await getLoop(ctx.db, loop_id))) throw notFound('loop', loop_id, 'List loops with `canopy loop list`.');
  const sandboxes = await listSandboxes(ctx.db, { loopId: loop_id });
  return { sandboxes: await Promise.all(sandboxes.map((sandbox) => viewOf(ctx, sandbox))) };
}

export interface LandedSandbox {
  sandbox: SandboxView;
  /** The workdir's branch the sandbox's commits were merged into. */
  onto: string;
  /** How many commits the sandbox's branch brought. */
  commits: number;
}

/**
 * Merges the sandbox's branch into the branch checked out in its loop's workdir (a fast-forward
 * when possible, else a merge commit naming the sandbox), then removes the worktree and the branch.
 * Refused, changing nothing, while its run is open, while another loop runs in the workdir's tree,
 * when either tree has uncommitted changes, and when the merge would conflict (naming the paths).
 */
export async function landSandbox(ctx: ClientContext, sandboxId: string): Promise<LandedSandbox> {
  const { sandbox, loop } = await requireChangeable(ctx, sandboxId, 'land');
  const workdir = loop.workdir;
  const [busy] = await loopsRunningInTree(ctx, workdir);
  if (busy) {
    throw new CanopyError(
      'refused',
      `Loop ${busy.name} (${busy.id}) is running in ${busy.workdir}, in the same working tree as ${workdir}; landing sandbox ${sandbox.id} ` +
        `would change files under its nodes. Wait for it to end, or pause it (\`canopy loop pause ${busy.id}\`), then land again. Nothing was changed.`,
    );
  }
  const dirty = await uncommittedPaths(workdir);
  if (dirty.length) {
    throw new CanopyError(
      'refused',
      `The workdir ${workdir} has uncommitted changes (${listed(dirty)}); commit or stash them, then land sandbox ${sandbox.id} again. Nothing was changed.`,
    );
  }
  const unsaved = existsSync(sandbox.path) ? await uncommittedPaths(sandbox.path) : [];
  if (unsaved.length) {
    throw new CanopyError(
      'refused',
      `Sandbox ${sandbox.id} has uncommitted changes (${listed(unsaved)}) that landing would lose; commit them in ${sandbox.path}, ` +
        `or drop them with \`canopy sandbox discard ${sandbox.id}\`. Nothing was changed.`,
    );
  }
  const onto = await checkedOutBranch(workdir);
  if (!onto) {
    throw new CanopyError(
      'refused',
      `The workdir ${workdir} has no branch checked out (detached HEAD); check out the branch to land onto, then land sandbox ${sandbox.id} again.`,
    );
  }
  const commits = await commitsAhead(workdir, sandbox.branch);
  if (commits === null) {
    throw new CanopyError(
      'refused',
      `Branch ${sandbox.branch} of sandbox ${sandbox.id} no longer exists in ${workdir}, so there is nothing to land; remove the sandbox with \`canopy sandbox discard ${sandbox.id}\`.`,
    );
  }
  const merge = await mergeBranch(workdir, sandbox.branch, `Land sandbox ${sandbox.id} of loop ${loop.name} (${sandbox.branch})`);
  if (!merge.merged) {
    throw new CanopyError(
      'conflict',
      `Sandbox ${sandbox.id} does not apply cleanly onto ${onto} in ${workdir}: its branch ${sandbox.branch} conflicts in ${listed(merge.conflicts)}. ` +
        `Nothing was changed. Merge it yourself (git merge ${sandbox.branch}), resolve the conflicts and commit, then land it again to remove it; ` +
        `or drop it with \`canopy sandbox discard ${sandbox.id}\`.`,
    );
  }
  await removeWorktree(workdir, sandbox.path, sandbox.branch);
  const landed = await updateSandbox(ctx.db, sandbox.id, { status: 'landed', landed_commit: merge.head });
  return { sandbox: await viewOf(ctx, landed!), onto, commits };
}

/** Removes the sandbox's worktree and deletes its branch, commits and all. Refused while its run is open. */
export async function discardSandbox(ctx: ClientContext, sandboxId: string): Promise<{ sandbox: SandboxView }> {
  const { sandbox, loop } = await requireChangeable(ctx, sandboxId, 'discard');
  await removeWorktree(loop.workdir, sandbox.path, sandbox.branch);
  const discarded = await updateSandbox(ctx.db, sandbox.id, { status: 'discarded' });
  return { sandbox: await viewOf(ctx, discarded!) };
}

/** An active sandbox on this host whose run has ended, with its loop. */
async function requireChangeable(
  ctx: ClientContext,
  sandboxId: string,
  verb: 'land' | 'discard',
): Promise<{ sandbox: Sandbox; loop: Loop }> {
  const sandbox = await getSandbox(ctx.db, sandboxId);
  if (!sandbox) throw notFound('sandbox', sandboxId, 'List sandboxes with `canopy sandbox list`.');
  if (sandbox.status !== 'active') {
    const when = sandbox.landed_commit ? ` as commit ${sandbox.landed_commit}` : '';
    throw new CanopyError('refused', `Sandbox ${sandbox.id} was already ${sandbox.status}${when}; there is nothing left to ${verb}.`);
  }
  if (!onThisHost(ctx, sandbox.host)) {
    throw new CanopyError(
      'refused',
      `Sandbox ${sandbox.id} is on host '${sandbox.host}', where its worktree and workdir are, and this is '${ctx.config.hostId}'; ` +
        `run \`canopy sandbox ${verb} ${sandbox.id}\` there (CANOPY_HOST_ID=${sandbox.host}).`,
    );
  }
  // The loop's deletion deletes its sandboxes' records, so a sandbox on record has its loop.
  const loop = (await getLoop(ctx.db, sandbox.loop_id))!;
  const run = await getLoopRun(ctx.db, sandbox.loop_run_id);
  if (run && run.ended_at === null) {
    throw new CanopyError(
      'refused',
      `Sandbox ${sandbox.id} is still in use: its run ${run.id} of loop ${loop.id} is open (the loop is ${loop.status}); ` +
        `wait for it to end, or stop it with \`canopy loop stop ${loop.id}\`, then ${verb} it.`,
    );
  }
  return { sandbox, loop };
}

/** Loops of this host running in the working tree `workdir` is in (not in sandboxes of their own): a merge there changes their files. */
async function loopsRunningInTree(ctx: ClientContext, workdir: string): Promise<Loop[]> {
  const { root } = await repositoryRoot(workdir);
  if (!root) return [];
  const running = (await listLoops(ctx.db)).filter((other) => other.status === 'running' && onThisHost(ctx, other.host));
  const inTree = await Promise.all(
    running.map(async (other) => {
      const run = await latestLoopRun(ctx.db, other.id);
      if (run && (await sandboxOfRun(ctx.db, run.id))) return false;
      return (await repositoryRoot(other.workdir)).root === root;
    }),
  );
  return running.filter((_, index) => inTree[index]);
}

async function viewOf(ctx: ClientContext, sandbox: Sandbox): Promise<SandboxView> {
  const [run, loop] = await Promise.all([getLoopRun(ctx.db, sandbox.loop_run_id), getLoop(ctx.db, sandbox.loop_id)]);
  const ahead =
    sandbox.status === 'active' && onThisHost(ctx, sandbox.host) && loop
      ? await commitsAhead(loop.workdir, sandbox.branch).catch(() => null)
      : null;
  return { ...sandbox, run_status: run?.status ?? null, commits_ahead: ahead };
}

/** At most the first ten paths, so a refusal stays readable. */
function listed(paths: string[]): string {
  const shown = paths.slice(0, 10).join(', ');
  return paths.length > 10 ? `${shown} and ${paths.length - 10} more` : shown;
}
