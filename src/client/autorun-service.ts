// One-shot autorun: a Temporal Schedule `autorun-<loop id>` that resumes the loop at a given time.
import { CanopyError } from '../domain/errors';
import type { autorunWorkflow } from '../workflows/autorun';
import type { ClientContext } from './context';
import { requireLoop } from './design-service';
import { temporalClientSdk } from '../temporal/sdk';

export const autorunScheduleId = (loopId: string): string => `autorun-${loopId}`;

export interface AutorunState {
  loop_id: string;
  schedule_id: string;
  /** When the loop will resume, or null when no autorun is pending. */
  at: string | null;
}

/** Schedules the loop to resume at `at` (ISO-8601), replacing any pending autorun; without `at` it cancels it. */
export async function scheduleAutorun(ctx: ClientContext, loopId: string, at?: string | null): Promise<AutorunState> {
  const loop = await requireLoop(ctx.db, loopId);
  const scheduleId = autorunScheduleId(loop.id);
  const when = at ? parseFutureTime(at) : null;
  const client = await ctx.temporal();
  const { MONTHS } = temporalClientSdk();
  await deleteIfPresent(client.schedule.getHandle(scheduleId));
  if (!when) return { loop_id: loop.id, schedule_id: scheduleId, at: null };
  await client.schedule.create<typeof autorunWorkflow>({
    scheduleId,
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
      type: 'startWorkflow',
      workflowType: 'autorunWorkflow',
      args: [{ loopId: loop.id }],
      taskQueue: ctx.config.taskQueue,
      workflowId: scheduleId,
    },
    state: { remainingActions: 1, note: `resume loop ${loop.name}` },
    memo: { loop_name: loop.name, workdir: loop.workdir },
  });
  return { loop_id: loop.id, schedule_id: scheduleId, at: when.toISOString() };
}

function parseFutureTime(at: string): Date {
  const when = new Date(at);
  if (Number.isNaN(when.getTime())) {
    throw new CanopyError('invalid_input', `at: '${at}' is not a time; give an ISO-8601 time such as 2026-12-01T09:00:00Z.`);
  }
  if (when.getTime() <= Date.now()) {
    throw new CanopyError(
      'invalid_input',
      `at: ${when.toISOString()} is in the past; give a future time, or omit at to cancel the autorun.`,
    );
  }
  return when;
}

async function deleteIfPresent(handle: { delete(): Promise<void> }): Promise<void> {
  const { ScheduleNotFoundError } = temporalClientSdk();
  try {
    await handle.delete();
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
  }
}
