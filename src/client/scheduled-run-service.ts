// What a loop's recurring schedule does when it fires: start the loop's run as `canopy loop run`
// does, unless a run of it is open or there is nothing to run, and then wait for that run to end.
import { CanopyError } from '../domain/errors';
import { temporalClientSdk } from '../temporal/sdk';
import { loopWorkflowId, type ScheduledStart, type LoopRunWorkflow, type WorkdirWait } from '../contract';
import type { ClientContext } from './context';
import { hasOpenRun, reconcileLoop } from './closed-runs-service';
import { requireLoop } from './design-service';
import { startLoopRun } from './runs-service';
import { WorkdirBusyError, workdirWait } from './workdir-claim-service';

/**
 * Starts the run, or says why this firing starts none. A run the schedule started itself keeps its
 * firing's workflow open, so Temporal skips those firings before they get here: an open run met
 * here was started some other way (`loop run`, an autorun, `loop continue`).
 */
export async function startScheduledRun(
  ctx: ClientContext,
  loopId: string,
  queueId: string | null,
  waitForWorkdir = false,
): Promise<ScheduledStart | WorkdirWait> {
  try {
    const loop = await reconcileLoop(ctx, await requireLoop(ctx.db, loopId));
    if (hasOpenRun(loop)) return openRunSkipped(loop.id, loop.status);
    const started = await startLoopRun(ctx, loop.id, { queueId });
    return { outcome: 'started', detail: `started ${started.workflow_id}`, workflowId: started.workflow_id, runId: started.run_id };
  } catch (error) {
    if (error instanceof WorkdirBusyError && waitForWorkdir) return workdirWait(error);
    if (!(error instanceof CanopyError)) throw error;
    if (error.code === 'conflict' && !(error instanceof WorkdirBusyError)) return openRunSkipped(loopId, 'running');
    return { outcome: 'skipped', detail: error.message };
  }
}

function openRunSkipped(loopId: string, status: string): ScheduledStart {
  return {
    outcome: 'skipped',
    detail: `the loop is ${status}: a run of it started another way is open (workflow ${loopWorkflowId(loopId)}), so this firing starts none`,
  };
}

/** How the run ended, once it has (through every continue-as-new); rejects when `signal` aborts first. */
export async function loopRunEnd(ctx: ClientContext, run: { workflowId: string; runId: string }, signal: AbortSignal): Promise<string> {
  const client = await ctx.temporal();
  const { WorkflowFailedError, WorkflowNotFoundError } = temporalClientSdk();
  const handle = client.workflow.getHandle<LoopRunWorkflow>(run.workflowId, undefined, { firstExecutionRunId: run.runId });
  try {
    const result = await client.withAbortSignal(signal, () => handle.result());
    return result.status === 'completed'
      ? `the run completed ${result.completedSpecIds.length} spec(s)`
      : `the run failed at ${result.failingNode ?? 'its start'}`;
  } catch (error) {
    if (error instanceof WorkflowFailedError) return `the run's workflow closed: ${error.message}`;
    if (error instanceof WorkflowNotFoundError) return `the run's workflow is gone from Temporal`;
    throw error;
  }
}
