// What the one-shot autorun and the recurring schedule share when they write and read Temporal Schedules.
import type { Client, ScheduleDescription, ScheduleUpdateOptions } from '@temporalio/client';
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

export interface LastFiring {
  at: string;
  workflow_id: string;
  /**
   * What its workflow's memo records: started or skipped (a recurring schedule's), resumed (an
   * autorun's), or waiting: another loop's open run holds the workdir, and it waits for that run to
   * end. pending: its workflow has not decided yet (no worker has taken it); failed: it ended
   * without deciding, or while it waited; unknown: Temporal no longer keeps its workflow.
   */
  outcome: 'started' | 'skipped' | 'resumed' | 'waiting' | 'pending' | 'failed' | 'unknown';
  detail: string | null;
}

/** The latest firing of the schedule that started a workflow, and what that workflow did; null before the first. */
export async function lastFiring(client: Client, described: ScheduleDescription): Promise<LastFiring | null> {
  const last = described.info.recentActions.at(-1);
  if (!last) return null;
  const { workflowId, firstExecutionRunId } = last.action.workflow;
  const firing = { at: last.takenAt.toISOString(), workflow_id: workflowId };
  const { WorkflowNotFoundError } = temporalClientSdk();
  const workflow = await client.workflow
    .getHandle(workflowId, firstExecutionRunId)
    .describe()
    .catch((error: unknown) => {
      if (error instanceof WorkflowNotFoundError) return null;
      throw error;
    });
  // The schedule remembers its last firings longer than a cluster may keep their workflows.
  if (!workflow) return { ...firing, outcome: 'unknown', detail: 'Temporal no longer keeps its workflow' };
  const memo = (workflow.memo ?? {}) as { outcome?: LastFiring['outcome']; detail?: string };
  const status = workflow.status.name.toLowerCase();
  if (memo.outcome === 'waiting' && workflow.status.name !== 'RUNNING')
    return { ...firing, outcome: 'failed', detail: `its workflow ${status} while it waited: ${memo.detail}` };
  const outcome = memo.outcome ?? (workflow.status.name === 'RUNNING' ? 'pending' : 'failed');
  const detail = memo.detail ?? (outcome === 'failed' ? `its workflow ${status} before deciding` : null);
  return { ...firing, outcome, detail };
}

/**
 * Deletes the schedule, ending first a firing of it that still waits for the loop's workdir: with the
 * schedule gone, nothing should start the loop once the workdir is free.
 */
export async function removeTemporalSchedule(client: Client, scheduleId: string): Promise<void> {
  const handle = client.schedule.getHandle(scheduleId);
  const described = await ignoringMissing(handle.describe());
  if (!described) return;
  const firing = await lastFiring(client, described);
  if (firing?.outcome === 'waiting') {
    const { WorkflowNotFoundError } = temporalClientSdk();
    await client.workflow
      .getHandle(firing.workflow_id)
      .terminate(`its schedule ${scheduleId} was removed while it waited for the workdir`)
      .catch((error: unknown) => {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      });
  }
  await ignoringMissing(handle.delete());
}
