// Field shapes shared by several entities.
import { z } from 'zod';

export const Id = z.string().min(1).describe('An id returned by canopy when the entity was created');

/** C0 and C1 controls (NUL, newline, ESC…), DEL, and the Unicode line and paragraph separators. */
const CONTROL_CHARACTER = /[\p{Cc}\u2028\u2029]/u;

/**
 * A name people read in lists and terminals and tools match exactly: one line of printable text
 * with nothing around it. It is stored exactly as given: nothing is trimmed, a name that would
 * need trimming is refused.
 */
export function nameOf(max: number) {
  return z
    .string()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine((name) => !CONTROL_CHARACTER.test(name), {
      message: 'must not contain control characters (newlines, tabs, escape sequences, NUL); use one line of printable text',
    })
    .refine((name) => name.trim() === name, { message: 'must not start or end with whitespace; remove the spaces around it' });
}

export const NodeName = nameOf(120)
  .refine((name) => !name.includes('/'), { message: 'must not contain "/" (reserved for ensemble members); use another character' })
  .describe('Node name, unique within its loop');

export const TimeoutMinutes = z
  .number()
  .positive('must be a positive number of minutes')
  .max(24 * 60, 'must be at most 1440 minutes (one day)');

/** Silence that kills a process: neither stdout nor stderr grew for this long. */
export const IdleTimeoutMinutes = TimeoutMinutes.describe(
  'Kill the process when neither its stdout nor its stderr has grown for this long: it fails as idle (default: the loop’s idle_timeout_minutes, else never)',
);

/** A limit on what agents may spend, in US dollars (a loop run's, or a spec's). */
export const BudgetUsd = z.number({ error: 'must be a number of US dollars, e.g. 5' }).positive('must be more than 0 dollars');

/** A limit on the agent tokens (input and output) that may be used (a loop run's, or a spec's). */
export const BudgetTokens = z
  .number({ error: 'must be a whole number of tokens, e.g. 200000' })
  .int('must be a whole number of tokens')
  .positive('must be more than 0 tokens');

export const MaxIterations = z.number().int('must be a whole number').min(1, 'must be at least 1').max(1000, 'must be at most 1000');

/** Why 2 to 1000: a stall is a round that ended as the one before it did, so it takes two rounds to see one; no loop runs more rounds than max_iterations allows. */
const STALLED_ROUNDS_RANGE =
  'must be a whole number of rounds from 2 to 1000 (a stall is a round that ends as the one before it did, so it takes 2 rounds to see one; no loop runs more than 1000)';

/** Consecutive rounds of a loop that may end the same way (the tree unchanged, the same node failing with the same output) before it blocks with no_progress. */
export const MaxStalledRounds = z
  .number({ error: STALLED_ROUNDS_RANGE })
  .int(STALLED_ROUNDS_RANGE)
  .min(2, STALLED_ROUNDS_RANGE)
  .max(1000, STALLED_ROUNDS_RANGE);

export const Timestamp = z.string().describe('ISO-8601 time');

/** Who a decision or a remark is from, as a person names themselves. */
export const PersonName = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

/**
 * Text that reaches a process (a command, a prompt, spec content): a NUL byte can travel in neither
 * argv nor the environment, so it is refused where the text enters rather than at every spawn.
 */
export const ProcessText = z.string().refine((text) => !text.includes('\u0000'), {
  message: 'must not contain NUL bytes (\\u0000): no process can receive them; remove them',
});

/** What a host id may be: it becomes part of a Temporal task queue name and of a worker's identity. */
const HOST_ID_PATTERN = /^[A-Za-z0-9._-]{1,253}$/;
export const HOST_ID_RULE = "1 to 253 letters, digits, '.', '_' or '-'";

/** Why `value` is no host id, or null when it is one. */
export function hostIdProblem(value: string): string | null {
  if (value === '') return 'is empty';
  return HOST_ID_PATTERN.test(value) ? null : `is not ${HOST_ID_RULE}`;
}

/** The machine a loop's workdir lives on, as its workers name it in CANOPY_HOST_ID. */
export const HostId = z.string().superRefine((value, ctx) => {
  const problem = hostIdProblem(value);
  if (problem)
    ctx.addIssue({ code: 'custom', message: `${problem}; give the CANOPY_HOST_ID of the machine the workdir is on, e.g. build-1` });
});
