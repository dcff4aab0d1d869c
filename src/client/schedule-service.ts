// Recurring schedules: a Temporal Schedule `schedule-<loop id>` that runs the loop's pending specs
// (or a queue's) at cron times or at an interval, recorded in the store so reads know of it.
import type { Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { z } from 'zod';
import { Id } from '../domain/common';
import { CanopyError, invalidInput, notFound, parseOrThrow } from '../domain/errors';
import type { Loop } from '../domain/loop';
import { checkScheduleTiming, drainedText, timingText, type LoopSchedule, type ScheduleTiming } from '../domain/schedule';
import { getQueue } from '../store/queues-repository';
import { deleteSchedule, getSchedule, putSchedule } from '../store/schedules-repository';
import type { ScheduledRunInput } from '../contract';
import { LIVE_STATE_CONNECT_TIMEOUT_MS, type ClientContext } from './context';
import { requireLoop } from './design-service';
import {
  createOrUpdateSchedule,
  ignoringMissing,
  lastFiring,
  removeTemporalSchedule,
  specRefusal,
  type LastFiring,
} from './temporal-schedules';

export const loopScheduleId = (loopId: string): string => `schedule-${loopId}`;

export const ScheduleLoopRequest = z
  .object({
    loop_id: Id,
    cron: z.string().optional().describe("Cron expression, 5 fields (minute hour day-of-month month day-of-week), e.g. '0 9 * * MON-FRI'"),
    every: z.string().optional().describe("Instead of cron: an interval, a whole number and a unit s, m, h or d, e.g. '15m'"),
    timezone: z.string().optional().describe("With cron: the IANA time zone its times are read in, e.g. 'Europe/Paris' (default UTC)"),
    queue_id: Id.optional().describe("Drain this queue's pending specs at each firing instead of the loop's own"),
  })
  .strict();

export type ScheduledLoop = LoopSchedule & { schedule_id: string };

/**
 * Runs the loop at every cron time or interval, replacing its schedule in place when it has one.
 * Every value is checked, and the loop and queue looked up, before Temporal is touched; a value
 * Temporal still refuses is refused as that field, and the schedule it had stays as it was.
 */
export async function scheduleLoop(ctx: ClientContext, request: unknown): Promise<ScheduledLoop> {
  const { loop_id, queue_id, ...given } = parseOrThrow(ScheduleLoopRequest, request, 'The schedule');
  const timing = checkScheduleTiming(given);
  const loop = await requireLoop(ctx.db, loop_id);
  if (loop.archived)
    throw new CanopyError(
      'refused',
      `Loop ${loop.id} is archived; restore it with \`canopy loop restore ${loop.id}\` before scheduling it.`,
    );
  if (queue_id && !(await getQueue(ctx.db, queue_id))) throw notFound('queue', queue_id, 'List queues with `canopy queue list`.');
  const schedule: LoopSchedule = { loop_id: loop.id, ...timing, queue_id: queue_id ?? null };
  const scheduleId = loopScheduleId(loop.id);
  await createOrUpdateSchedule(await ctx.temporal(), scheduleId, temporalSchedule(ctx, loop, schedule), {
    loop_id: loop.id,
    loop_name: loop.name,
    workdir: loop.workdir,
  }).catch((error: unknown) => {
    throw refusedByTemporal(error, timing);
  });
  return scheduledLoop(await putSchedule(ctx.db, schedule));
}

function scheduledLoop(schedule: LoopSchedule): ScheduledLoop {
  const { loop_id, cron, every, timezone, queue_id } = schedule;
  return { loop_id, schedule_id: loopScheduleId(loop_id), cron, every, timezone, queue_id };
}

/** Removes the loop's schedule; `removed` is false when it had none. */
export async function unscheduleLoop(
  ctx: ClientContext,
  loopId: string,
): Promise<{ loop_id: string; schedule_id: string; removed: boolean }> {
  const loop = await requireLoop(ctx.db, loopId);
  return { loop_id: loop.id, schedule_id: loopScheduleId(loop.id), removed: await removeSchedule(ctx, loop.id) };
}

/**
 * Removes the loop's schedule, if the store records one, from Temporal and then from the store
 * (deleting or archiving a loop does this too); without one, Temporal is not asked.
 */
export async function removeSchedule(ctx: ClientContext, loopId: string): Promise<boolean> {
  if (!(await getSchedule(ctx.db, loopId))) return false;
  const client = await ctx.temporal();
  await removeTemporalSchedule(client, loopScheduleId(loopId));
  return deleteSchedule(ctx.db, loopId);
}

function temporalSchedule(ctx: ClientContext, loop: Loop, schedule: LoopSchedule) {
  const when = timingText(schedule);
  const what = drainedText(schedule);
  const args: [ScheduledRunInput] = [{ loopId: loop.id, queueId: schedule.queue_id }];
  return {
    spec: {
      ...(schedule.cron === null ? { intervals: [{ every: schedule.every as Duration }] } : { cronExpressions: [schedule.cron] }),
      timezone: schedule.timezone,
    },
    action: {
      type: 'startWorkflow' as const,
      workflowType: 'scheduledRunWorkflow',
      args,
      taskQueue: ctx.config.taskQueue,
      workflowId: loopScheduleId(loop.id),
      staticSummary: `scheduled run of loop ${loop.name}`,
      staticDetails: `runs ${what} ${when}; skipped while a run of the loop is open`,
      memo: { loop_id: loop.id, loop_name: loop.name },
    },
    // SKIP: a firing while the run an earlier firing started is still going starts nothing.
    policies: { overlap: 'SKIP' as const },
    state: { note: `run loop ${loop.name} (${what}) ${when}` },
  };
}

function refusedByTemporal(error: unknown, timing: ScheduleTiming): unknown {
  const refusal = specRefusal(error);
  if (refusal === null) return error;
  const field = /time ?zone/i.test(refusal) ? 'timezone' : timing.cron === null ? 'every' : 'cron';
  const value = field === 'timezone' ? timing.timezone : (timing.cron ?? timing.every);
  return invalidInput('The schedule', [{ field, message: `'${value}' was refused by Temporal: ${refusal}` }]);
}

export interface LoopScheduleReport extends ScheduledLoop {
  /** The next times it fires, soonest first. */
  next_firings: string[];
  /** The latest firing that started a workflow: whether it started the loop's run or skipped, and why. */
  last_firing: LastFiring | null;
  /** Firings Temporal skipped because the run an earlier firing started was still going. */
  skipped_while_running: number;
  /** Why next and last firings are missing (Temporal did not answer, or has no such schedule); null when they are there. */
  unavailable: string | null;
}

/** How long a read waits for Temporal to describe the schedule and its last firing. */
const DESCRIBE_DEADLINE_MS = 1_500;
const NEXT_FIRINGS_SHOWN = 5;

/** The loop's schedule with its next and last firings, or null when it has none (then Temporal is not asked). */
export async function describeLoopSchedule(ctx: ClientContext, loopId: string): Promise<LoopScheduleReport | null> {
  const stored = await getSchedule(ctx.db, loopId);
  if (!stored) return null;
  const schedule = scheduledLoop(stored);
  const none = { next_firings: [], last_firing: null, skipped_while_running: 0 };
  try {
    const client = await ctx.temporal(LIVE_STATE_CONNECT_TIMEOUT_MS);
    const firings = await client.withDeadline(Date.now() + DESCRIBE_DEADLINE_MS, () => readFirings(client, schedule.schedule_id));
    if (!firings)
      return {
        ...schedule,
        ...none,
        unavailable: `Temporal has no schedule ${schedule.schedule_id}; set it again with \`canopy loop schedule\``,
      };
    return { ...schedule, ...firings, unavailable: null };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      ...schedule,
      ...none,
      unavailable: `schedule state unavailable: Temporal at ${ctx.config.temporalAddress} did not answer (${why})`,
    };
  }
}

async function readFirings(client: Client, scheduleId: string) {
  const described = await ignoringMissing(client.schedule.getHandle(scheduleId).describe());
  if (!described) return undefined;
  return {
    next_firings: described.info.nextActionTimes.slice(0, NEXT_FIRINGS_SHOWN).map((time) => time.toISOString()),
    last_firing: await lastFiring(client, described),
    skipped_while_running: described.info.numActionsSkippedOverlap,
  };
}
