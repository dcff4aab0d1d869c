// What the one-shot autorun and the recurring schedule share when they write Temporal Schedules.
import type { Client, ScheduleUpdateOptions } from '@temporalio/client';
import { temporalClientSdk } from '../temporal/sdk';

/** Resolves to undefined when the schedule does not exist. */
export async function ignoringMissing<T>(work: Promise<T>): Promise<T | undefined> {
  const { ScheduleNotFoundError } = temporalClientSdk();
  try {
    return await work;
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return undefined;
    throw error;
  }
}

/**
 * Updates the schedule in place, so what it already did stays in its record, or creates it when
 * there is none; `memo` is set at creation only (Temporal keeps a schedule's memo as created).
 */
export async function createOrUpdateSchedule(
  client: Client,
  scheduleId: string,
  schedule: ScheduleUpdateOptions,
  memo: Record<string, unknown>,
): Promise<void> {
  const updated = await ignoringMissing(
    client.schedule
      .getHandle(scheduleId)
      .update(() => schedule)
      .then(() => true),
  );
  if (!updated) await client.schedule.create({ scheduleId, ...schedule, memo });
}

/** Why Temporal refused a schedule's spec, or null when `error` is not such a refusal. */
export function specRefusal(error: unknown): string | null {
  const { ServiceError } = temporalClientSdk();
  // The SDK turns the server's "Invalid schedule spec: <why>" into a TypeError holding the why.
  if (error instanceof TypeError) return error.message;
  if (error instanceof ServiceError && /spec/i.test(error.message)) return error.message;
  return null;
}
