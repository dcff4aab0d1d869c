// One workdir runs one loop at a time: a run claims its loop's workdir when it is requested, and a
// request that finds another loop's open run there is refused, naming that loop and its run.
import { realpath } from 'node:fs/promises';
import { loopWorkflowId, type WorkdirWait } from '../contract';
import { CanopyError } from '../domain/errors';
import type { Loop } from '../domain/loop';
import { getLoop } from '../store/loops-repository';
import { claimWorkdir, workdirHolder, type WorkdirHolder, type WorkdirPlace } from '../store/workdir-claims-repository';
import type { DatabaseOrTransaction } from '../store/database';
import { temporalClientSdk } from '../temporal/sdk';
import { hasOpenRun, reconcileLoop } from './closed-runs-service';
import { LIVE_STATE_CONNECT_TIMEOUT_MS, onThisHost, type ClientContext } from './context';

/** A run refused because another loop's open run holds the workdir; a scheduled or autorun start waits instead. */
export class WorkdirBusyError extends CanopyError {
  constructor(
    readonly loop: Pick<Loop, 'id' | 'name'>,
    readonly holder: WorkdirHolder,
  ) {
    super(
      'conflict',
      `${holderText(holder)}, so loop ${loop.name} (${loop.id}) was not started: one workdir runs one loop at a time. ` +
        `Wait for that run to end (\`canopy loop info ${holder.loop_id}\`) or stop it (\`canopy loop stop ${holder.loop_id}\`); ` +
        `or run this loop in a worktree of its own (\`canopy loop run ${loop.id} --sandbox\`), ` +
        `or let it share the workdir on purpose (\`canopy loop update ${loop.id} --share-workdir\`, setting share_workdir: true).`,
    );
    this.name = 'WorkdirBusyError';
  }
}

/** What holds the workdir: `Workdir /w is held by loop other (loop_x), whose run lrun_y is open (running since …)`. */
export function holderText(holder: WorkdirHolder): string {
  return (
    `Workdir ${holder.workdir} is held by loop ${holder.loop_name} (${holder.loop_id}), ` +
    `whose run ${holder.loop_run_id} is open (${holder.loop_status} since ${holder.claimed_at})`
  );
}

/** What a scheduled or autorun start that found the workdir busy says while it waits. */
export function workdirWait(error: WorkdirBusyError): WorkdirWait {
  return { outcome: 'waiting', detail: `${holderText(error.holder)}; this start waits for it to end, then runs` };
}

/**
 * The place a run of the loop claims, or null when it claims none: a sandboxed run works in a
 * worktree of its own, and a loop with share_workdir runs beside others. A workdir on this machine
 * is compared by its real path, so a symlink to it is the same workdir; one elsewhere as recorded.
 */
export async function workdirToClaim(ctx: ClientContext, loop: Loop, run: { sandbox?: boolean }): Promise<WorkdirPlace | null> {
  if (run.sandbox || loop.settings.share_workdir) return null;
  const workdir = onThisHost(ctx, loop.host) ? await realpath(loop.workdir).catch(() => loop.workdir) : loop.workdir;
  return { host: loop.host ?? '', workdir };
}

/** Whether another loop's open run holds the loop's workdir, so that a start of it would be refused or wait; from the store alone. */
export async function heldByAnotherLoop(ctx: ClientContext, loop: Loop): Promise<boolean> {
  const place = await workdirToClaim(ctx, loop, {});
  const holder = place && (await workdirHolder(ctx.db, place));
  return holder !== null && holder !== undefined && holder.loop_id !== loop.id;
}

/** Claims the place for the run inside the caller's transaction, or throws WorkdirBusyError, which rolls it back. */
export async function holdWorkdir(tx: DatabaseOrTransaction, loop: Loop, place: WorkdirPlace, loopRunId: string): Promise<void> {
  const holder = await claimWorkdir(tx, { ...place, loop_id: loop.id, loop_run_id: loopRunId });
  if (holder) throw new WorkdirBusyError(loop, holder);
}

/**
 * How long after its claim a run's workflow may still be unknown to Temporal: the request records the
 * run, then connects (up to a minute) and starts the workflow. A holder is judged only after this.
 */
const START_GRACE_MS = 2 * 60_000;

/**
 * Runs `request`, which claims a workdir; when the claim is refused by a run claimed over two minutes
 * ago whose workflow Temporal has closed or does not know (its end was never recorded: terminated
 * outside canopy, or its request died before the start), that run is recorded closed and `request`
 * runs once more. A holder still open, or a Temporal that does not answer, leaves the refusal as it was.
 */
export async function closingDeadHolder<T>(ctx: ClientContext, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (!(error instanceof WorkdirBusyError) || !(await workflowGone(ctx, error.holder))) throw error;
    const holder = await getLoop(ctx.db, error.holder.loop_id);
    if (holder && hasOpenRun(await reconcileLoop(ctx, holder))) throw error;
    return request();
  }
}

async function workflowGone(ctx: ClientContext, holder: WorkdirHolder): Promise<boolean> {
  if (Date.now() - Date.parse(holder.claimed_at) < START_GRACE_MS) return false;
  const { WorkflowNotFoundError } = temporalClientSdk();
  try {
    const client = await ctx.temporal(LIVE_STATE_CONNECT_TIMEOUT_MS);
    return (await client.workflow.getHandle(loopWorkflowId(holder.loop_id)).describe()).status.name !== 'RUNNING';
  } catch (error) {
    return error instanceof WorkflowNotFoundError;
  }
}
