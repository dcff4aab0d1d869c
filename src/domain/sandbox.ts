// Sandboxes: a run's own git worktree of its loop's workdir, on a branch of its own, until it is landed or discarded.
import { z } from 'zod';
import { HostId, Id, Timestamp } from './common';

export const SANDBOX_STATUSES = ['active', 'landed', 'discarded'] as const;
export const SandboxStatus = z.enum(SANDBOX_STATUSES);
export type SandboxStatus = z.infer<typeof SandboxStatus>;

/** The branch a run's sandbox works on. */
export const sandboxBranch = (loopRunId: string): string => `canopy/sandbox-${loopRunId}`;

export const Sandbox = z.object({
  id: Id.describe('Sandbox id, e.g. sbx_k3j9x0q2m1ab'),
  loop_id: Id.describe('The loop whose run works in it'),
  loop_run_id: Id.describe('The loop run that works in it (the newest, when a failed run was continued in it)'),
  branch: z.string().describe('Its branch in the workdir’s repository, canopy/sandbox-<loop run id>'),
  path: z.string().describe('The worktree’s directory, under <home>/sandboxes/'),
  base_head: z.string().describe('The workdir’s HEAD the branch started from'),
  host: HostId.nullable().describe('The host the workdir and the worktree are on; null for a loop with no host'),
  status: SandboxStatus.describe('active until landed (merged into the workdir’s branch) or discarded'),
  landed_commit: z.string().nullable().describe('The workdir’s HEAD after landing; null unless landed'),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Sandbox = z.infer<typeof Sandbox>;
