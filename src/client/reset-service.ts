// Resetting a loop: its specs, or the ones named, back to pending with no failed runs counted.
import { CanopyError, invalidInput } from '../domain/errors';
import type { LoopStatus } from '../domain/loop';
import { setLoopStatus } from '../store/loops-repository';
import { runningNodeRuns } from '../store/node-runs-repository';
import { listSpecs, resetSpecs, type StoredSpec } from '../store/specs-repository';
import { hasOpenRun, reconcileLoop } from './closed-runs-service';
import type { ClientContext } from './context';
import { requireLoop } from './design-service';

export interface ResetResult {
  loop_id: string;
  /** pending, or still paused or blocked when its run is open: `loop continue` then goes on with the reset specs. */
  status: LoopStatus;
  specs_reset: number;
}

/**
 * Returns the loop's specs (only those named by name or id, when `specs` is given) to pending with
 * their failure counts cleared. A loop with no open run becomes pending; a paused or blocked one
 * keeps its run, which claims the reset specs when continued. Refused while a node of the loop runs.
 */
export async function resetLoop(ctx: ClientContext, loopId: string, options: { specs?: readonly string[] } = {}): Promise<ResetResult> {
  const loop = await reconcileLoop(ctx, await requireLoop(ctx.db, loopId));
  const running = await runningNodeRuns(ctx.db, loop.id);
  if (running.length > 0) {
    const names = running.map((run) => `'${run.node_name}' (${run.id})`).join(', ');
    throw new CanopyError(
      'refused',
      `Loop ${loop.id} is running node ${names}; reset it once the node ends (pause it with \`canopy loop pause ${loop.id}\`) or stop it with \`canopy loop stop ${loop.id}\`.`,
    );
  }
  if (loop.status === 'running') {
    throw new CanopyError(
      'refused',
      `Loop ${loop.id} is running; pause it with \`canopy loop pause ${loop.id}\` or stop it with \`canopy loop stop ${loop.id}\` before resetting it.`,
    );
  }
  const specs = await listSpecs(ctx.db, { loopId: loop.id });
  const chosen = options.specs ? chooseSpecs(specs, options.specs) : specs;
  const stale = chosen.filter((spec) => spec.status !== 'pending' || spec.failure_count > 0);
  const runOpen = hasOpenRun(loop);
  await ctx.db.transaction().execute(async (tx) => {
    await resetSpecs(
      tx,
      stale.map((spec) => spec.id),
    );
    if (!runOpen) await setLoopStatus(tx, loop.id, 'pending');
  });
  return { loop_id: loop.id, status: runOpen ? loop.status : 'pending', specs_reset: stale.length };
}

/** The loop's specs named by `refs` (names or ids), refusing any it does not have. */
function chooseSpecs(specs: StoredSpec[], refs: readonly string[]): StoredSpec[] {
  if (refs.length === 0) {
    throw invalidInput('The reset', [{ field: 'specs', message: 'name at least one spec, or leave specs out to reset them all' }]);
  }
  const unknown = refs.filter((ref) => !specs.some((spec) => spec.id === ref || spec.name === ref));
  if (unknown.length > 0) {
    const known = specs.map((spec) => `'${spec.name}' (${spec.id})`).join(', ') || 'none';
    throw invalidInput('The reset', [
      {
        field: 'specs',
        message: `the loop has no spec ${unknown.map((ref) => `'${ref}'`).join(', ')}; its specs are ${known}`,
      },
    ]);
  }
  return specs.filter((spec) => refs.includes(spec.id) || refs.includes(spec.name));
}
