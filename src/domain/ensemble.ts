// Ensembles: 2 to 8 agents given one prompt in parallel, joined by a quorum.
import { z } from 'zod';
import { Id, NodeName, ProcessText, TimeoutMinutes } from './common';

export const MIN_ENSEMBLE_MEMBERS = 2;
export const MAX_ENSEMBLE_MEMBERS = 8;

export const EnsembleMember = z
  .object({
    platform: z.string().min(1).optional().describe('Agent platform of this member'),
    model: z.string().min(1).optional().describe('Model of this member'),
    prompt_override: ProcessText.min(1).optional().describe('This member’s own prompt instead of the shared one'),
    timeout_minutes: TimeoutMinutes.optional().describe('This member’s own timeout over the ensemble’s'),
  })
  .strict();
export type EnsembleMember = z.infer<typeof EnsembleMember>;

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
  timeout_minutes: TimeoutMinutes.optional().describe('Timeout of each member (default 30)'),
  entry_from_node: z.string().min(1).optional().describe('Node whose outcome starts the ensemble'),
  entry_condition: z.string().min(1).optional().describe('Condition on the entry edge (default always)'),
  on_pass_to: z.string().min(1).optional().describe('Node the quorum routes to on pass'),
  on_fail_to: z.string().min(1).optional().describe('Node the quorum routes to on fail'),
  position: z.number().optional().describe('Canvas position of the ensemble (default: just after entry_from_node)'),
};

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
