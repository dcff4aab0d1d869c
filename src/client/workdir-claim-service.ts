// One workdir runs one loop at a time: a run claims its loop's workdir when it is requested, and a
// request that finds another loop's open run there is refused, naming that loop and its run.
import { realpath } from 'node:fs/promises';
import type { WorkdirWait } from '../contract';
import { CanopyError } from '../domain/errors';
import type { Loop } from '../domain/loop';
import { getLoop } from '../store/loops-repository';
import { claimWorkdir, type WorkdirHolder, type WorkdirPlace } from '../store/workdir-claims-repository';
import type { DatabaseOrTransaction } from '../store/database';
import { hasOpenRun, reconcileLoop } from './closed-runs-service';
import { onThisHost, type ClientContext } from './context';

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

/** Claims the place for the run inside the caller's transaction, or throws WorkdirBusyError, which rolls it back. */
export async function holdWorkdir(tx: DatabaseOrTransaction, loop: Loop, place: WorkdirPlace, loopRunId: string): Promise<void> {
  const holder = await claimWorkdir(tx, { ...place, loop_id: loop.id, loop_run_id: loopRunId });
  if (holder) throw new WorkdirBusyError(loop, holder);
}

/**
 * Runs `request`, which claims a workdir; when the claim is refused by a run whose workflow Temporal
 * says has closed (its worker never recorded the end), that run is recorded closed and `request` runs
 * once more. A holder still open, or a Temporal that does not answer, leaves the refusal as it was.
 */
export async function closingDeadHolder<T>(ctx: ClientContext, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (!(error instanceof WorkdirBusyError)) throw error;
    const holder = await getLoop(ctx.db, error.holder.loop_id);
    if (holder && hasOpenRun(await reconcileLoop(ctx, holder))) throw error;
    return request();
  }
}
