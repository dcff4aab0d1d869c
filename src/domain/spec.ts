// Specs (units of work, bound to a loop or in the backlog) and queues of specs.
import { z } from 'zod';
import { BudgetTokens, BudgetUsd, Id, nameOf, ProcessText, Timestamp } from './common';

import { SPEC_STATUSES } from './vocabulary';

export { SPEC_STATUSES };
export const SpecStatus = z.enum(SPEC_STATUSES);
export type SpecStatus = z.infer<typeof SpecStatus>;

export const SpecName = nameOf(200);

export const QueueName = nameOf(200);

const SPEC_BUDGET_USD =
  'What every run of its loop together may spend on agents for this spec, in US dollars: once spent, the loop blocks with budget_exhausted before the next node, until a raised budget and `loop continue` (default: no limit)';
const SPEC_BUDGET_TOKENS =
  'What every run of its loop together may use in agent tokens (input and output) for this spec: once used, the loop blocks with budget_exhausted before the next node, until a raised budget and `loop continue` (default: no limit)';

export const SpecCreateInput = z
  .object({
    name: SpecName.describe('Spec name'),
    content: ProcessText.default('').describe('What to do; {{spec_content}} falls back to the name when empty'),
    loop_id: Id.nullable().default(null).describe('Bind to this loop; null keeps the spec in the backlog'),
    workdir: z.string().min(1).nullable().default(null).describe('Workdir tag for filtering backlog specs'),
    budget_usd: BudgetUsd.nullable().default(null).describe(SPEC_BUDGET_USD),
    budget_tokens: BudgetTokens.nullable().default(null).describe(SPEC_BUDGET_TOKENS),
  })
  .strict();
export type SpecCreateInput = z.input<typeof SpecCreateInput>;

export const SpecUpdateInput = z
  .object({
    name: SpecName.optional(),
    content: ProcessText.optional(),
    status: SpecStatus.optional(),
    loop_id: Id.nullable().optional(),
    workdir: z.string().min(1).nullable().optional(),
    budget_usd: BudgetUsd.nullable().optional().describe(`${SPEC_BUDGET_USD}; null removes it`),
    budget_tokens: BudgetTokens.nullable().optional().describe(`${SPEC_BUDGET_TOKENS}; null removes it`),
  })
  .strict();
export type SpecUpdateInput = z.infer<typeof SpecUpdateInput>;

export const Spec = z.object({
  id: Id,
  loop_id: Id.nullable(),
  name: z.string(),
  content: z.string(),
  status: SpecStatus,
  workdir: z.string().nullable(),
  position: z.number(),
  failure_count: z
    .number()
    .int()
    .describe('Runs in which the spec failed since it was created or last reset; at the loop’s spec_attempt_limit it no longer starts'),
  budget_usd: z.number().nullable(),
  budget_tokens: z.number().int().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Spec = z.infer<typeof Spec>;

export const Queue = z.object({
  id: Id,
  name: z.string(),
  spec_ids: z.array(Id),
  created_at: Timestamp,
});
export type Queue = z.infer<typeof Queue>;
