// Specs (units of work, bound to a loop or in the backlog) and queues of specs.
import { z } from 'zod';
import { Id, nameOf, ProcessText, Timestamp } from './common';

export const SPEC_STATUSES = ['pending', 'running', 'completed', 'failed', 'skipped'] as const;
export const SpecStatus = z.enum(SPEC_STATUSES);
export type SpecStatus = z.infer<typeof SpecStatus>;

export const SpecName = nameOf(200);

export const QueueName = nameOf(200);

export const SpecCreateInput = z
  .object({
    name: SpecName.describe('Spec name'),
    content: ProcessText.default('').describe('What to do; {{spec_content}} falls back to the name when empty'),
    loop_id: Id.nullable().default(null).describe('Bind to this loop; null keeps the spec in the backlog'),
    workdir: z.string().min(1).nullable().default(null).describe('Workdir tag for filtering backlog specs'),
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
