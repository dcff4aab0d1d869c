// One-shot autorun: a Temporal Schedule `autorun-<loop id>` that resumes the loop at a given time.
import { resetTimeOf, resumeAfterReset } from '../agents/reset-time';
import { CanopyError, invalidInput } from '../domain/errors';
import type { ClientContext } from './context';
import { requireLoop } from './design-service';
import { temporalClientSdk } from '../temporal/sdk';
import { createOrUpdateSchedule, ignoringMissing, lastFiring, removeTemporalSchedule, specRefusal } from './temporal-schedules';

export const autorunScheduleId = (loopId: string): string => `autorun-${loopId}`;

export interface AutorunState {
  loop_id: string;
  schedule_id: string;
  /** When the loop will resume, or null when no autorun is pending. */
  at: string | null;
}

/**
 * Schedules the loop to resume at `at` (ISO-8601), replacing any pending autorun in place; without
 * `at` it cancels it. A refused time changes nothing: it is checked before the schedule is touched,
 * and the schedule is updated rather than deleted and created again.
 */
export async function scheduleAutorun(ctx: ClientContext, loopId: string, at?: string | null): Promise<AutorunState> {
  const loop = await requireLoop(ctx.db, loopId);
  const scheduleId = autorunScheduleId(loop.id);
  const when = at ? parseAutorunTime(at) : null;
  const client = await ctx.temporal();
  if (!when) {
    await removeTemporalSchedule(client, scheduleId);
    return { loop_id: loop.id, schedule_id: scheduleId, at: null };
  }
  const { MONTHS } = temporalClientSdk();
  const schedule = {
    spec: {
      calendars: [
        {
          year: when.getUTCFullYear(),
          month: MONTHS[when.getUTCMonth()],
          dayOfMonth: when.getUTCDate(),
          hour: when.getUTCHours(),
          minute: when.getUTCMinutes(),
          second: when.getUTCSeconds(),
        },
      ],
    },
    action: {
      type: 'startWorkflow' as const,
      workflowType: 'autorunWorkflow',
      args: [{ loopId: loop.id }] as [{ loopId: string }],
      taskQueue: ctx.config.taskQueue,
      workflowId: scheduleId,
    },
    state: { remainingActions: 1, note: `resume loop ${loop.name}` },
  };
  await createOrUpdateSchedule(client, scheduleId, schedule, { loop_name: loop.name, workdir: loop.workdir }).catch((error: unknown) => {
    const refusal = specRefusal(error);
    throw refusal === null ? error : autorunRefused(`'${at}' was refused by Temporal: ${refusal}`);
  });
  return { loop_id: loop.id, schedule_id: scheduleId, at: when.toISOString() };
}

export interface AutorunProgress {
  /** When the loop's pending autorun fires, or null when none is pending. */
  at: string | null;
  /** What holds the workdir when the autorun has fired and waits for it, or null. */
  waiting: string | null;
}

/** The loop's autorun: when it fires, or, once fired, whether it waits for the workdir. */
export async function autorunProgress(ctx: ClientContext, loopId: string): Promise<AutorunProgress> {
  const client = await ctx.temporal();
  const described = await ignoringMissing(client.schedule.getHandle(autorunScheduleId(loopId)).describe());
  const at = described?.info.nextActionTimes[0]?.toISOString() ?? null;
  const fired = described && !at ? await lastFiring(client, described) : null;
  return { at, waiting: fired?.outcome === 'waiting' ? fired.detail : null };
}

/**
 * Every pending autorun, loop id → when it fires, from one listing of the namespace's schedules
 * (a view of many loops asks once rather than once per loop). The listing may lag a change by a moment.
 */
export async function pendingAutoruns(ctx: ClientContext): Promise<Record<string, string>> {
  const client = await ctx.temporal();
  const pending: Record<string, string> = {};
  const prefix = autorunScheduleId('');
  for await (const schedule of client.schedule.list()) {
    const next = schedule.info.nextActionTimes[0];
    if (schedule.scheduleId.startsWith(prefix) && next) pending[schedule.scheduleId.slice(prefix.length)] = next.toISOString();
  }
  return pending;
}

/** An autorun at a time or after a quota's reset, or none when neither is given. */
export async function requestAutorun(
  ctx: ClientContext,
  loopId: string,
  when: { at?: string; quota_reset_message?: string },
): Promise<AutorunState> {
  if (when.at && when.quota_reset_message) {
    throw new CanopyError('invalid_input', 'at, quota_reset_message: give one of them (or neither, to cancel), not both.');
  }
  return when.quota_reset_message
    ? scheduleAutorunAfterQuota(ctx, loopId, when.quota_reset_message)
    : scheduleAutorun(ctx, loopId, when.at);
}

/** The longest a usage limit is believed to last; a reset time further away is a misreading. */
const MAX_QUOTA_WAIT_MS = 24 * 3600_000;

/** Schedules the loop to resume when the quota named in a CLI's usage-limit message resets (e.g. "resets 3pm (Europe/Paris)"). */
export async function scheduleAutorunAfterQuota(ctx: ClientContext, loopId: string, message: string): Promise<AutorunState> {
  const now = new Date();
  const reset = resetTimeOf(message, now);
  if (!reset) {
    throw new CanopyError(
      'invalid_input',
      `quota_reset_message: '${message}' names no reset time; give the CLI's words, e.g. 'resets 3pm (Europe/Paris)' or 'try again at 8:41 AM', or use at.`,
    );
  }
  if (reset.getTime() - now.getTime() > MAX_QUOTA_WAIT_MS) {
    throw new CanopyError(
      'invalid_input',
      `quota_reset_message: '${message}' reads as ${reset.toISOString()}, more than 24 h away; give at with the exact time instead.`,
    );
  }
  return scheduleAutorun(ctx, loopId, resumeAfterReset(reset));
}

/** Temporal's calendar specs accept these years only. */
const FIRST_YEAR = 2000;
const LAST_YEAR = 2100;

function parseAutorunTime(at: string): Date {
  const when = new Date(at);
  if (Number.isNaN(when.getTime())) {
    throw autorunRefused(`'${at}' is not a time; give an ISO-8601 time such as 2026-12-01T09:00:00Z`);
  }
  if (when.getTime() <= Date.now()) {
    throw autorunRefused(`${when.toISOString()} is in the past; give a future time, or omit at to cancel the autorun`);
  }
  const year = when.getUTCFullYear();
  if (year < FIRST_YEAR || year > LAST_YEAR) {
    throw autorunRefused(`${when.toISOString()} is outside the years ${FIRST_YEAR}-${LAST_YEAR} a schedule can name; give an earlier time`);
  }
  return when;
}

function autorunRefused(message: string): CanopyError {
  return invalidInput('The autorun time', [{ field: 'at', message }]);
}
