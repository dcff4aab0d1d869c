// An agent's own report (pass or fail, or a blocker) kept in its run directory, where it outlives the
// worker that started the agent: whoever takes a report writes it here before sending it on, and the
// node's judge reads it when the process ends, also after a new worker adopted the run. A file is
// replaced whole (written aside, then renamed), so a reader never sees half a report.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** The newest `loop_complete_node` of the run. */
export const KeptReport = z.strictObject({ status: z.enum(['pass', 'fail']), output: z.string().nullable() });
export type KeptReport = z.infer<typeof KeptReport>;

/** The newest `loop_report_blocker` of the run; `delivered` once the loop was told. */
export const KeptBlocker = z.strictObject({ reason: z.string().min(1), delivered: z.boolean() });
export type KeptBlocker = z.infer<typeof KeptBlocker>;

const REPORT_FILE = 'report.json';
const BLOCKER_FILE = 'blocker.json';

export function keepReport(runDir: string, report: KeptReport): void {
  replaceWhole(path.join(runDir, REPORT_FILE), report);
}

export function keepBlocker(runDir: string, blocker: KeptBlocker): void {
  replaceWhole(path.join(runDir, BLOCKER_FILE), blocker);
}

/** The kept report, or null when there is none; a file that is not a report is an error naming it. */
export function readKeptReport(runDir: string): KeptReport | null {
  return readKept(path.join(runDir, REPORT_FILE), KeptReport);
}

export function readKeptBlocker(runDir: string): KeptBlocker | null {
  return readKept(path.join(runDir, BLOCKER_FILE), KeptBlocker);
}

/** Whether two reports say the same (a later one replaced this one when they differ). */
export function sameReport(a: KeptReport | null, b: KeptReport): boolean {
  return a !== null && a.status === b.status && a.output === b.output;
}

function replaceWhole(file: string, value: unknown): void {
  const aside = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(aside, JSON.stringify(value), { mode: 0o600 });
  renameSync(aside, file);
}

function readKept<T>(file: string, schema: z.ZodType<T>): T | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not JSON`);
  }
  const result = schema.safeParse(parsed);
  if (!result.success) throw new Error(`${file} is not a report canopy wrote: ${result.error.issues[0]?.message ?? 'invalid'}`);
  return result.data;
}
