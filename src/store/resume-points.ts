// A failed run's resume point as the loop_runs table keeps it (JSON text), checked as it is read back: what a
// continued run starts from is never taken on trust from a column.
import { z } from 'zod';
import type { ResumePoint } from '../contract/loop-run';

const ResumePointRecord = z.object({
  specId: z.string().min(1),
  vertex: z.string().min(1),
  rounds: z.record(z.string(), z.number().int().min(0)),
  strategy: z.enum(['retry', 'skip']),
  specStartHead: z.string(),
  specCommittedHead: z.string(),
  specStartDirty: z.array(z.string()),
  previousRunId: z.string().nullable(),
  turns: z.record(z.string(), z.object({ member: z.number().int().min(0), since: z.enum(['start', 'pass', 'fail']) })).optional(),
}) satisfies z.ZodType<ResumePoint>;

export function serializeResumePoint(point: ResumePoint): string {
  return JSON.stringify(point);
}

/** The resume point `text` holds, or why it holds none canopy could have written. */
export function parseResumePoint(text: string): { point: ResumePoint } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `it is not JSON (${(error as Error).message})` };
  }
  const parsed = ResumePointRecord.safeParse(value);
  if (parsed.success) return { point: parsed.data };
  return { problem: parsed.error.issues.map((issue) => `${issue.path.join('.') || '(whole)'}: ${issue.message}`).join('; ') };
}
