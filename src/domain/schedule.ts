// A loop's recurring schedule: when it fires (a cron expression or an interval, in a time zone) and
// what it drains. The checks here run before Temporal is asked; Temporal checks ranges itself.
import { invalidInput, type Issue } from './errors';

const DEFAULT_TIMEZONE = 'UTC';

export interface LoopSchedule {
  loop_id: string;
  /** A 5-field cron expression, or null when `every` is set. */
  cron: string | null;
  /** An interval such as `15m`, or null when `cron` is set. */
  every: string | null;
  /** IANA time zone the cron expression is read in. */
  timezone: string;
  /** The queue each firing drains, or null for the loop's own specs. */
  queue_id: string | null;
}

export type ScheduleTiming = Pick<LoopSchedule, 'cron' | 'every' | 'timezone'>;

const CRON_EXAMPLE = "'0 9 * * MON-FRI' (09:00 on weekdays)";
const EVERY_EXAMPLE = "'30s', '15m', '2h' or '1d'";
const CRON_FIELDS = ['minute', 'hour', 'day-of-month', 'month', 'day-of-week'];
const CRON_SHORTHANDS = ['@hourly', '@daily', '@weekly', '@monthly', '@yearly'];
const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const LONGEST_INTERVAL_DAYS = 366;

/** `every 15m`, or `at cron '0 9 * * *' (Europe/Paris)`. */
export function timingText(timing: ScheduleTiming): string {
  return timing.cron === null ? `every ${timing.every}` : `at cron '${timing.cron}' (${timing.timezone})`;
}

/** What each firing runs. */
export function drainedText(schedule: Pick<LoopSchedule, 'queue_id'>): string {
  return schedule.queue_id ? `queue ${schedule.queue_id}` : 'its own specs';
}

/** Checks the timing of a schedule request, reporting every bad field at once. */
export function checkScheduleTiming(request: { cron?: string; every?: string; timezone?: string }): ScheduleTiming {
  const issues: Issue[] = [];
  const cron = request.cron ?? null;
  const every = request.every ?? null;
  const timezone = request.timezone ?? DEFAULT_TIMEZONE;
  if (cron !== null && every !== null) {
    issues.push({
      field: 'cron, every',
      message: `give one of them, not both: cron for times of day or week (e.g. ${CRON_EXAMPLE}), every for an interval (e.g. ${EVERY_EXAMPLE})`,
    });
  } else if (cron === null && every === null) {
    issues.push({
      field: 'cron, every',
      message: `give one: cron, a cron expression such as ${CRON_EXAMPLE}, or every, an interval such as ${EVERY_EXAMPLE}`,
    });
  }
  const cronProblem = cron === null ? null : cronIssue(cron);
  if (cronProblem) issues.push({ field: 'cron', message: cronProblem });
  const everyProblem = every === null ? null : intervalIssue(every);
  if (everyProblem) issues.push({ field: 'every', message: everyProblem });
  const zoneProblem =
    every !== null && request.timezone !== undefined
      ? `applies to cron times only: an interval counts from the Unix epoch in any zone; for a time of day give cron, e.g. '0 0 * * *' with timezone`
      : timezoneIssue(timezone);
  if (zoneProblem) issues.push({ field: 'timezone', message: zoneProblem });
  if (issues.length) throw invalidInput('The schedule', issues);
  return { cron, every, timezone };
}

/** What is wrong with a cron expression's shape, or null; Temporal checks each field's range. */
function cronIssue(cron: string): string | null {
  const text = cron.trim();
  if (text.startsWith('@every')) return `'${cron}' is an interval; give it as every instead, e.g. ${EVERY_EXAMPLE}`;
  if (/^(CRON_)?TZ=/.test(text)) return `'${cron}' names its time zone; give the time zone as timezone and leave it out of cron`;
  if (text.startsWith('@')) {
    return CRON_SHORTHANDS.includes(text)
      ? null
      : `'${cron}' is not a shorthand canopy knows; use ${CRON_SHORTHANDS.join(', ')}, or 5 fields`;
  }
  // Temporal reads what follows `#` as a comment, so `1#2` would mean every Monday rather than the second one.
  if (text.includes('#')) {
    return `'${cron}' holds '#', which Temporal reads as the start of a comment (no nth weekday); for the second Monday write '0 9 8-14 * MON'`;
  }
  const fields = text.split(/\s+/);
  if (fields.length !== CRON_FIELDS.length) {
    return (
      `'${cron}' has ${text ? fields.length : 0} field(s); give 5 (${CRON_FIELDS.join(' ')}), e.g. ${CRON_EXAMPLE}` +
      (fields.length > CRON_FIELDS.length ? ', and use every for an interval in seconds' : '')
    );
  }
  const odd = fields.findIndex((field) => !/^[0-9A-Za-z*,/-]+$/.test(field));
  if (odd >= 0) {
    return `the ${CRON_FIELDS[odd]} field '${fields[odd]}' of '${cron}' can hold only numbers, names (JAN, MON), *, ranges a-b, lists a,b and steps /n`;
  }
  return null;
}

function intervalIssue(every: string): string | null {
  const match = /^(\d+)([smhd])$/.exec(every);
  if (!match) return `'${every}' is not an interval; give a whole number and one unit s, m, h or d, e.g. ${EVERY_EXAMPLE}`;
  const ms = Number(match[1]) * UNIT_MS[match[2]];
  if (ms === 0) return `'${every}' is no time at all; give at least 1s`;
  if (ms > LONGEST_INTERVAL_DAYS * UNIT_MS.d)
    return `'${every}' is longer than ${LONGEST_INTERVAL_DAYS}d; use cron for rarer runs, e.g. '0 9 1 1 *'`;
  return null;
}

function timezoneIssue(timezone: string): string | null {
  let known: string;
  try {
    known = new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    return `'${timezone}' is not an IANA time zone; give a name such as 'Europe/Paris', 'America/New_York' or 'UTC'`;
  }
  // Temporal looks zones up by exact name, so a name that only differs in case is refused there.
  if (known !== timezone && known.toLowerCase() === timezone.toLowerCase()) return `time zone names are case-sensitive; write '${known}'`;
  return null;
}
