// Ensembles: 2 to 8 agents given one prompt in parallel, joined by a quorum.
import { z } from 'zod';
import { Id, IdleTimeoutMinutes, NodeName, ProcessText, TimeoutMinutes } from './common';

export const MIN_ENSEMBLE_MEMBERS = 2;
export const MAX_ENSEMBLE_MEMBERS = 8;

export const EnsembleMember = z
  .object({
    platform: z.string().min(1).optional().describe('Agent platform of this member'),
    model: z.string().min(1).optional().describe('Model of this member'),
    prompt_override: ProcessText.min(1).optional().describe('This member’s own prompt instead of the shared one'),
    timeout_minutes: TimeoutMinutes.optional().describe('This member’s own timeout over the ensemble’s'),
    idle_timeout_minutes: IdleTimeoutMinutes.optional().describe('This member’s own idle timeout over the ensemble’s'),
    resume: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe('false: this member starts its CLI cold every round instead of continuing its own last passed session (default true)'),
  })
  .strict();
export type EnsembleMember = z.infer<typeof EnsembleMember>;

/** Where members work: all in the workdir (shared), or each in a git worktree of its own made from the workdir's tree. */
export const EnsembleIsolation = z.enum(['shared', 'worktree'], {
  error: 'must be "shared" (every member in the workdir) or "worktree" (each member in a git worktree of its own)',
});
export type EnsembleIsolation = z.infer<typeof EnsembleIsolation>;

/** 0 cuts the members still running as soon as the quorum is met. */
const QuorumGraceMinutes = z
  .number({ error: 'must be a number of minutes, e.g. 0.5 (or 0 to cut the rest at once)' })
  .min(0, 'must be 0 or more minutes (0 cuts the members still running as soon as the quorum is met)')
  .max(24 * 60, 'must be at most 1440 minutes (one day)');

const ensembleFields = {
  name: NodeName,
  prompt_template: ProcessText.min(1, 'must not be empty').describe('Prompt shared by every member without an override'),
  members: z
    .array(EnsembleMember)
    .min(MIN_ENSEMBLE_MEMBERS, `an ensemble needs at least ${MIN_ENSEMBLE_MEMBERS} members`)
    .max(MAX_ENSEMBLE_MEMBERS, `an ensemble takes at most ${MAX_ENSEMBLE_MEMBERS} members`),
  min_pass: z.number().int().min(1).optional().describe('Members that must pass for the quorum to pass (default: all)'),
  straggler_timeout_minutes: TimeoutMinutes.optional().describe(
    'A member still running this long after its start is killed and counted as fail',
  ),
  quorum_grace_minutes: QuorumGraceMinutes.optional().describe(
    'Once min_pass members passed, how long the rest may still finish before they are cut short (default: wait for every member)',
  ),
  timeout_minutes: TimeoutMinutes.optional().describe('Timeout of each member (default 30)'),
  idle_timeout_minutes: IdleTimeoutMinutes.optional().describe(
    'Kill a member when it has printed nothing (stdout or stderr) this long: it fails as idle (default: the loop’s, else never)',
  ),
  isolation: EnsembleIsolation.optional().describe(
    'worktree: each member works in a git worktree of its own made from the workdir (HEAD plus uncommitted changes), its diff goes into the quorum document, and the workdir is left as it was (default: shared, every member in the workdir)',
  ),
  entry_from_node: z.string().min(1).optional().describe('Node whose outcome starts the ensemble'),
  entry_condition: z.string().min(1).optional().describe('Condition on the entry edge (default always)'),
  on_pass_to: z.string().min(1).optional().describe('Node the quorum routes to on pass'),
  on_fail_to: z.string().min(1).optional().describe('Node the quorum routes to on fail'),
  position: z.number().optional().describe('Canvas position of the ensemble (default: just after entry_from_node)'),
};

/** Settings that only an ensemble takes: given in a node's config, they are refused with where they belong. */
export const ENSEMBLE_ONLY_SETTINGS = ['members', 'min_pass', 'straggler_timeout_minutes', 'quorum_grace_minutes', 'isolation'] as const;

export const EnsembleInput = z
  .object(ensembleFields)
  .strict()
  .refine((e) => e.min_pass === undefined || e.min_pass <= e.members.length, {
    message: 'min_pass cannot exceed the number of members',
    path: ['min_pass'],
  });
export type EnsembleInput = z.infer<typeof EnsembleInput>;

export const Ensemble = z.object({ id: Id, loop_id: Id, ...ensembleFields });
export type Ensemble = z.infer<typeof Ensemble>;
