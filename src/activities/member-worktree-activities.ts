// The activities that give an isolated ensemble's members a worktree each, made on the workdir's
// host under the worker's canopy home, and take them away after the quorum.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { MemberWorktrees, MemberWorktreesPlace, OpenMemberWorktreesInput } from '../contract';
import { openMemberWorktree, removeMemberWorktree, snapshotTree, type StartingTree } from '../git/member-worktrees';
import { workdirInWorktree } from '../git/worktrees';
import type { ActivityDeps } from './deps';
import { requireRepository } from './sandbox-activities';

/** One directory per loop, spec and ensemble (named by a hash: ensemble names may hold any character but "/"). */
export function memberWorktreesDir(home: string, place: Omit<MemberWorktreesPlace, 'workdir'>): string {
  const ensemble = createHash('sha256').update(place.ensembleName).digest('hex').slice(0, 16);
  return path.join(home, 'member-worktrees', place.loopId, `${place.specId}-${ensemble}`);
}

/** Beside the worktrees: the starting tree, so a continued run's members diff against the tree they began from. */
const STARTING_TREE_FILE = 'starting-tree';

export function memberWorktreeActivities(deps: ActivityDeps) {
  return {
    async openMemberWorktrees(input: OpenMemberWorktreesInput): Promise<MemberWorktrees> {
      const root = await requireRepository(
        input.workdir,
        `Ensemble '${input.ensembleName}' has isolation "worktree", which needs`,
        'set its isolation to "shared"',
      );
      const dir = memberWorktreesDir(deps.home, input);
      if (!input.reuse) await removeAll(input.workdir, dir);
      const tree = (input.reuse && (await startingTreeIn(dir))) || (await recordStartingTree(input.workdir, dir));
      const worktrees = Array.from({ length: input.members }, (_, index) => path.join(dir, String(index)));
      for (const worktree of worktrees) await openMemberWorktree(input.workdir, worktree, tree);
      return {
        start: tree.start,
        workdirs: worktrees.map((worktree) => workdirInWorktree(input.workdir, root, worktree)),
      };
    },

    async removeMemberWorktrees(input: MemberWorktreesPlace): Promise<void> {
      await removeAll(input.workdir, memberWorktreesDir(deps.home, input));
    },
  };
}

async function recordStartingTree(workdir: string, dir: string): Promise<StartingTree> {
  const tree = await snapshotTree(workdir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(path.join(dir, STARTING_TREE_FILE), `${tree.head} ${tree.start}\n`);
  return tree;
}

async function startingTreeIn(dir: string): Promise<StartingTree | null> {
  const file = path.join(dir, STARTING_TREE_FILE);
  if (!existsSync(file)) return null;
  const [head, start] = (await readFile(file, 'utf8')).trim().split(' ');
  return head && start ? { head, start } : null;
}

async function removeAll(workdir: string, dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  const worktrees = (await readdir(dir)).filter((entry) => /^\d+$/.test(entry));
  for (const entry of worktrees) await removeMemberWorktree(workdir, path.join(dir, entry));
  await rm(dir, { recursive: true, force: true });
}
