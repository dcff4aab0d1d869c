// A loop whose workflow ended without finishing its own bookkeeping (stopped, or terminated,
// cancelled, timed out or failed outside canopy) is recorded as failed, so it can be reset; one
// whose status still says a run is open after that run recorded its outcome takes the outcome.
import { killProcessGroups } from '../process/process-group';
import { OPEN_RUN_STATUSES, type Loop, type LoopStatus } from '../domain/loop';
import type { FailureKind } from '../domain/node-run';
import { insertLoopRun, latestLoopRun, updateLoopRun, type LoopRun } from '../store/loop-runs-repository';
import { getLoop, setLoopStatus } from '../store/loops-repository';
import { endRunningNodeRuns } from '../store/node-runs-repository';
import { listSpecs, updateSpec } from '../store/specs-repository';
import { temporalClientSdk } from '../temporal/sdk';
import { loopWorkflowId, type LoopRunWorkflow } from '../contract';
import { LIVE_STATE_CONNECT_TIMEOUT_MS, type ClientContext } from './context';

/** Store statuses that mean a workflow of the loop should be open in Temporal. */
export function hasOpenRun(loop: Loop): boolean {
  return OPEN_RUN_STATUSES.includes(loop.status);
}

/** Ends the loop's open records as failed with `reason`, and kills process groups a dead run left behind on this machine. */
export async function recordRunClosed(ctx: ClientContext, loop: Loop, failure: { kind: FailureKind; reason: string }): Promise<Loop> {
  const groups = await ctx.db.transaction().execute(async (tx) => {
    const run = await latestLoopRun(tx, loop.id);
    const ended = {
      status: 'failed',
      failure_kind: failure.kind,
      failure_reason: failure.reason,
      resume: null,
      ended_at: new Date().toISOString(),
    };
    // A run no worker ever picked up has no record yet; it gets one, so the reason shows.
    if (run?.status === 'running') await updateLoopRun(tx, run.id, ended);
    else await insertLoopRun(tx, { loop_id: loop.id, workflow_id: loopWorkflowId(loop.id), ...ended });
    for (const spec of await listSpecs(tx, { loopId: loop.id, status: 'running' })) await updateSpec(tx, spec.id, { status: 'failed' });
    await setLoopStatus(tx, loop.id, 'failed');
    return endRunningNodeRuns(tx, loop.id, cancelledWith(failure), ctx.config.hostId);
  });
  await killProcessGroups(groups);
  return (await getLoop(ctx.db, loop.id))!;
}

/**
 * Ends what was still running after the loop's run had ended (its hooks) as cancelled with `reason`,
 * and kills their process groups on this machine; the run's own outcome and resume point stand.
 */
export async function recordHooksStopped(ctx: ClientContext, loop: Loop, failure: { kind: FailureKind; reason: string }): Promise<void> {
  await killProcessGroups(await endRunningNodeRuns(ctx.db, loop.id, cancelledWith(failure), ctx.config.hostId));
}

const cancelledWith = (failure: { kind: FailureKind; reason: string }) => ({
  status: 'cancelled' as const,
  failure_kind: failure.kind,
  reason: failure.reason,
});

/** How long a read waits for Temporal to describe the loop's workflow. */
const DESCRIBE_DEADLINE_MS = 1_500;

/**
 * The loop as it really is: with its last run's outcome when the run recorded one, and when the
 * store says a run is open but Temporal says its workflow closed, the store is brought up to date
 * first. When Temporal does not answer, the store's view stands.
 */
export async function reconcileLoop(ctx: ClientContext, loop: Loop): Promise<Loop> {
  const settled = await settleWithLastRun(ctx, loop);
  if (!hasOpenRun(settled)) return settled;
  const closed = await closedWorkflow(ctx, loop.id).catch(() => null);
  return closed ? recordRunClosed(ctx, settled, { kind: 'workflow_closed', reason: closed }) : settled;
}

/**
 * The loop with the outcome its last run recorded, when its status says a run is open but that
 * run's record has ended: a status written out of turn, after the run had ended, is put right.
 * From the store alone (a loop shows an open run only while its last run's record is open), so
 * `loop list` can use it without asking Temporal.
 */
export async function settleWithLastRun(ctx: ClientContext, loop: Loop): Promise<Loop> {
  if (!hasOpenRun(loop) || !recordedOutcome(loop, await latestLoopRun(ctx.db, loop.id))) return loop;
  // Looked at again under the write lock: a new run may have begun since.
  const settled = await ctx.db.transaction().execute(async (tx) => {
    const now = await getLoop(tx, loop.id);
    const outcome = recordedOutcome(now, await latestLoopRun(tx, loop.id));
    return outcome ? setLoopStatus(tx, loop.id, outcome) : now;
  });
  return settled ?? loop;
}

/** The outcome the last run recorded, when the loop still shows that run open. */
function recordedOutcome(loop: Loop | undefined, last: LoopRun | undefined): LoopStatus | null {
  if (!loop || !hasOpenRun(loop)) return null;
  return last?.status === 'completed' || last?.status === 'failed' ? last.status : null;
}

/** Why the loop's workflow is no longer running, or null while it runs (or completed, which it records itself). */
async function closedWorkflow(ctx: ClientContext, loopId: string): Promise<string | null> {
  const client = await ctx.temporal(LIVE_STATE_CONNECT_TIMEOUT_MS);
  const { WorkflowNotFoundError, WorkflowFailedError } = temporalClientSdk();
  const handle = client.workflow.getHandle<LoopRunWorkflow>(loopWorkflowId(loopId));
  return client.connection.withDeadline(Date.now() + DESCRIBE_DEADLINE_MS, async () => {
    let status: string;
    try {
      status = (await handle.describe()).status.name;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return `Temporal has no run of workflow ${handle.workflowId}; it was lost or deleted.`;
      throw error;
    }
    if (status === 'RUNNING' || status === 'COMPLETED' || status === 'CONTINUED_AS_NEW') return null;
    if (status !== 'FAILED') return `The workflow ${handle.workflowId} was ${status.toLowerCase().replace('_', ' ')} outside canopy.`;
    const cause = await handle.result().then(
      () => '',
      (error: unknown) => (error instanceof WorkflowFailedError && error.cause ? `: ${innermostMessage(error.cause)}` : ''),
    );
    return `The workflow ${handle.workflowId} failed${cause}.`;
  });
}

/** Temporal wraps the reason an activity gave in an ActivityFailure; the innermost cause says why. */
function innermostMessage(error: Error): string {
  let inner = error;
  while (inner.cause instanceof Error) inner = inner.cause;
  return inner.message;
}
