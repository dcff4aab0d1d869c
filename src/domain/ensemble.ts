// Ensembles: 2 to 8 agents given one prompt, side by side or taking turns, joined by a quorum.
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

/**
 * How the members run: all side by side (parallel); one at a time in order until one passes
 * (cascade); or one per entry into the ensemble, the same one while it passes and the next once it
 * fails (round_robin).
 */
export const EnsembleKind = z.enum(['parallel', 'cascade', 'round_robin'], {
  error:
    'must be "parallel" (every member side by side), "cascade" (one at a time until one passes) or "round_robin" (one member per entry, taking turns)',
});
export type EnsembleKind = z.infer<typeof EnsembleKind>;

/** 0 cuts the members still running as soon as the quorum is met. */
const QuorumGraceMinutes = z
  .number({ error: 'must be a number of minutes, e.g. 0.5 (or 0 to cut the rest at once)' })
  .min(0, 'must be 0 or more minutes (0 cuts the members still running as soon as the quorum is met)')
  .max(24 * 60, 'must be at most 1440 minutes (one day)');

/** One way into an ensemble: the node or ensemble it comes from and the outcome of it that enters. */
export const EnsembleEntry = z
  .object({
    node: z.string().min(1).optional().describe('Node whose outcome enters the ensemble'),
    ensemble: z.string().min(1).optional().describe('Ensemble whose outcome enters this one'),
    condition: z.string().min(1).optional().describe('Outcome that enters: pass, fail, error, always (default) or a router’s label'),
  })
  .strict()
  .refine((entry) => (entry.node === undefined) !== (entry.ensemble === undefined), {
    message: 'give either node or ensemble: the vertex this entry comes from',
    path: ['node'],
  });
export type EnsembleEntry = z.infer<typeof EnsembleEntry>;

/** Where a quorum routes: a node by its name, or another ensemble as {"ensemble": name}. */
export const EnsembleTarget = z.union([z.string().min(1), z.object({ ensemble: z.string().min(1) }).strict()], {
  error: 'must be a node’s name or {"ensemble": "<name>"}',
});
export type EnsembleTarget = z.infer<typeof EnsembleTarget>;

/** The wiring keys: entries and exits, which the store keeps as edges. */
export const ENSEMBLE_WIRING_KEYS = ['entry_from', 'entry_from_node', 'entry_condition', 'on_pass_to', 'on_fail_to'] as const;

const ensembleFields = {
  name: NodeName,
  prompt_template: ProcessText.min(1, 'must not be empty').describe('Prompt shared by every member without an override'),
  kind: EnsembleKind.optional().describe(
    'parallel: every member side by side (the default); cascade: one member at a time in order, the first that passes ends it; round_robin: one member per entry, the same one again after a pass, the next after a failure',
  ),
  members: z
    .array(EnsembleMember)
    .min(MIN_ENSEMBLE_MEMBERS, `an ensemble needs at least ${MIN_ENSEMBLE_MEMBERS} members`)
    .max(MAX_ENSEMBLE_MEMBERS, `an ensemble takes at most ${MAX_ENSEMBLE_MEMBERS} members`),
  min_pass: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Members that must pass for the quorum to pass (default: all; a cascade or round_robin ensemble takes 1)'),
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
  entry_from: z
    .array(EnsembleEntry)
    .optional()
    .describe('Entries into the ensemble, each from a node or another ensemble on its own condition'),
  entry_from_node: z.string().min(1).optional().describe('The older form of one entry: node whose outcome starts the ensemble'),
  entry_condition: z.string().min(1).optional().describe('Condition of entry_from_node’s entry (default always)'),
  on_pass_to: EnsembleTarget.optional().describe('Node, or {"ensemble": name}, the quorum routes to on pass'),
  on_fail_to: EnsembleTarget.optional().describe('Node, or {"ensemble": name}, the quorum routes to on fail'),
  position: z.number().optional().describe('Canvas position of the ensemble (default: just after the last vertex wired into it)'),
};

/** Settings that only an ensemble takes: given in a node's config, they are refused with where they belong. */
export const ENSEMBLE_ONLY_SETTINGS = ['members', 'min_pass', 'straggler_timeout_minutes', 'quorum_grace_minutes', 'isolation'] as const;

export const EnsembleInput = z
  .object(ensembleFields)
  .strict()
  .refine((e) => e.min_pass === undefined || e.min_pass <= e.members.length, {
    message: 'min_pass cannot exceed the number of members',
    path: ['min_pass'],
  })
  .refine((e) => !takesTurns(e) || e.min_pass === undefined || e.min_pass === 1, {
    message: 'a cascade or round_robin ensemble passes when the one member that ran last passes: min_pass must be 1 or left out',
    path: ['min_pass'],
  })
  .refine((e) => !takesTurns(e) || e.quorum_grace_minutes === undefined, {
    message: 'applies to a parallel ensemble only (its members run one at a time otherwise): remove it or set kind "parallel"',
    path: ['quorum_grace_minutes'],
  });
export type EnsembleInput = z.infer<typeof EnsembleInput>;

export const Ensemble = z.object({ id: Id, loop_id: Id, ...ensembleFields });
export type Ensemble = z.infer<typeof Ensemble>;

/** Whether the members take turns (cascade, round_robin) rather than run side by side. */
export function takesTurns(ensemble: { kind?: EnsembleKind | null }): boolean {
  return (ensemble.kind ?? 'parallel') !== 'parallel';
}

/** How many members must pass: min_pass (default every member) side by side; the one that ran last when they take turns. */
export function quorumMinPass(ensemble: { kind?: EnsembleKind | null; min_pass?: number | null; members: unknown[] }): number {
  return takesTurns(ensemble) ? 1 : (ensemble.min_pass ?? ensemble.members.length);
}
