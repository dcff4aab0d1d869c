// Loops as records: create, list, get (with graph and specs), update, delete, archive and restore.
import { z } from 'zod';
import { Id } from '../domain/common';
import { CanopyError, invalidInput, parseOrThrow } from '../domain/errors';
import type { LoopHooks, OnCompletedHook } from '../domain';
import { LoopCreateInput, LoopUpdateInput, OPEN_RUN_STATUSES, type Loop } from '../domain/loop';
import type { Sandbox } from '../domain/sandbox';
import { withShownReceivers } from '../domain/notify';
import { isUniqueViolation } from '../store/constraint-errors';
import type { DatabaseOrTransaction } from '../store/database';
import { getGraph } from '../store/graph-repository';
import { hookPlaceholderIssues, placeholderIssue } from '../graph/hook-placeholders';
import {
  deleteLoop as deleteLoopRow,
  findLoopByName,
  insertLoop,
  listLoops as listLoopRows,
  updateLoop as updateLoopRow,
} from '../store/loops-repository';
import { listSandboxes } from '../store/sandboxes-repository';
import { listSpecs, type StoredSpec } from '../store/specs-repository';
import type { ClientContext } from './context';
import { reconcileLoop, settleWithLastRun } from './closed-runs-service';
import { requireLoop } from './design-service';
import { hostWarnings } from './pollers-service';
import { viewGraph, type GraphView } from './graph-view-service';
import { removeSchedule } from './schedule-service';
import { requireWorkdir } from './workdir';
import { loopUsage, type LoopUsage } from './usage-service';

/** loop_get: the loop, its whole graph with ids (member and quorum nodes included) and its specs. */
/** A loop with its graph, its specs and what its agents used. */
export type LoopDetail = Loop & GraphView & { specs: StoredSpec[]; agent_usage: LoopUsage };

export const ListLoopsRequest = z.object({ include_archived: z.boolean().default(false).describe('Also list archived loops') }).strict();

export const UpdateLoopRequest = z.object({ loop_id: Id, ...LoopUpdateInput.shape }).strict();

export async function createLoop(ctx: ClientContext, request: unknown): Promise<Loop> {
  const input = parseOrThrow(LoopCreateInput, request, 'The loop');
  const workdir = requireWorkdir(input.workdir, 'The loop');
  await refuseTakenName(ctx.db, workdir, input.name);
  // The workdir was just found on this machine, so this machine's workers are the ones to run it.
  const loop = await insertLoop(ctx.db, { ...input, workdir, host: ctx.config.hostId }).catch((error: unknown) => {
    throw isUniqueViolation(error) ? nameTaken(workdir, input.name) : error;
  });
  return withShownReceivers(loop);
}

/** By name; archived loops only when asked for. */
export async function listLoops(ctx: ClientContext, request: unknown = {}): Promise<Loop[]> {
  const { include_archived } = parseOrThrow(ListLoopsRequest, request, 'The request');
  const loops = await listLoopRows(ctx.db, { includeArchived: include_archived });
  return Promise.all(loops.map(async (loop) => withShownReceivers(await settleWithLastRun(ctx, loop))));
}

/** Any loop by id, archived or not. */
export async function getLoop(ctx: ClientContext, loopId: string): Promise<LoopDetail> {
  const loop = await settleWithLastRun(ctx, await requireLoop(ctx.db, loopId));
  const [graph, specs, agent_usage] = await Promise.all([getGraph(ctx.db, loopId), listSpecs(ctx.db, { loopId }), loopUsage(ctx, loopId)]);
  return { ...withShownReceivers(loop), ...viewGraph(graph), specs, agent_usage };
}

/**
 * loop_get with what Temporal knows: a warning when no worker serves the loop's host, so its
 * nodes would wait (none when Temporal does not answer within about a second).
 */
export async function getLoopWithWarnings(
  ctx: ClientContext,
  loopId: string,
): Promise<LoopDetail & { warnings: string[]; sandboxes: ActiveSandbox[] }> {
  const loop = await getLoop(ctx, loopId);
  const sandboxes = (await listSandboxes(ctx.db, { loopId: loop.id }))
    .filter((sandbox) => sandbox.status === 'active')
    .map(({ id, loop_run_id, branch, path }) => ({ id, loop_run_id, branch, path }));
  return { ...loop, warnings: await hostWarnings(ctx, loop), sandboxes };
}

/** A sandbox of the loop not yet landed or discarded: sandbox_land or sandbox_discard ends it. */
export type ActiveSandbox = Pick<Sandbox, 'id' | 'loop_run_id' | 'branch' | 'path'>;

/**
 * Changes name, description, workdir, host, settings (replaced whole), the event hooks (replaced
 * whole; null removes them) or only the first on_completed hook (null removes it).
 */
export async function updateLoop(ctx: ClientContext, request: unknown): Promise<Loop> {
  const { loop_id, on_completed, hooks, ...changes } = parseOrThrow(UpdateLoopRequest, request, 'The loop');
  const loop = await requireLoop(ctx.db, loop_id);
  const newHooks = hooksAfter(loop.hooks, { on_completed, hooks });
  const workdir = changes.workdir === undefined ? loop.workdir : requireWorkdir(changes.workdir, 'The loop');
  const name = changes.name ?? loop.name;
  if (workdir !== loop.workdir || name !== loop.name) await refuseTakenName(ctx.db, workdir, name);
  const updated = await updateLoopRow(ctx.db, loop.id, { ...changes, workdir, hooks: newHooks });
  return withShownReceivers(updated!);
}

/** Deletes the loop with its graph, history and schedule; its specs return to the backlog. */
export async function deleteLoop(ctx: ClientContext, loopId: string): Promise<{ loop_id: string; deleted: true }> {
  const loop = await reconcileLoop(ctx, await requireLoop(ctx.db, loopId));
  if (OPEN_RUN_STATUSES.includes(loop.status)) {
    throw new CanopyError(
      'refused',
      `Loop ${loop.id} is ${loop.status}, so a run of it is still open: stop it with \`canopy loop stop ${loop.id}\` ` +
        `before deleting it, or archive it instead.`,
    );
  }
  const active = (await listSandboxes(ctx.db, { loopId: loop.id })).filter((sandbox) => sandbox.status === 'active');
  if (active.length) {
    throw new CanopyError(
      'refused',
      `Loop ${loop.id} has sandboxes not yet landed or discarded (${active.map((sandbox) => sandbox.id).join(', ')}), whose worktrees ` +
        `and branches deleting it would leave behind: land or discard each (\`canopy sandbox land|discard <id>\`), then delete it.`,
    );
  }
  await removeSchedule(ctx, loop.id);
  await deleteLoopRow(ctx.db, loop.id);
  return { loop_id: loop.id, deleted: true };
}

/** Hides the loop from loop_list and removes its schedule; nothing else of it is lost and loop_get still finds it. */
export async function archiveLoop(ctx: ClientContext, loopId: string): Promise<Loop> {
  const loop = await reconcileLoop(ctx, await requireLoop(ctx.db, loopId));
  if (loop.status === 'running')
    throw new CanopyError(
      'refused',
      `Loop ${loop.id} is running; pause or stop it (\`canopy loop stop ${loop.id}\`) first, then archive it.`,
    );
  await removeSchedule(ctx, loop.id);
  return withShownReceivers((await updateLoopRow(ctx.db, loop.id, { archived: true }))!);
}

export async function restoreLoop(ctx: ClientContext, loopId: string): Promise<Loop> {
  const loop = await requireLoop(ctx.db, loopId);
  return withShownReceivers((await updateLoopRow(ctx.db, loop.id, { archived: false }))!);
}

/**
 * The hooks after an update: `hooks` replaces them all (null removes them), `on_completed` sets or
 * (null) removes only the first on_completed hook; undefined leaves them. Unknown placeholders are
 * refused, naming the ones the event gives.
 */
function hooksAfter(
  current: LoopHooks,
  change: { hooks?: LoopHooks | null; on_completed?: OnCompletedHook | null },
): LoopHooks | undefined {
  if (change.hooks !== undefined && change.on_completed !== undefined) {
    throw invalidInput('The loop', [
      { field: 'on_completed', message: 'give hooks (every hook) or on_completed (the first on_completed hook), not both' },
    ]);
  }
  if (change.hooks !== undefined) {
    const issues = hookPlaceholderIssues(change.hooks ?? {});
    if (issues.length) throw invalidInput('The loop', issues);
    return withoutEmptyLists(change.hooks ?? {});
  }
  if (change.on_completed === undefined) return undefined;
  const issue = change.on_completed && placeholderIssue('on_completed', change.on_completed);
  if (issue) throw invalidInput('The loop', [{ field: 'on_completed.prompt', message: issue }]);
  const [, ...others] = current.on_completed ?? [];
  return withoutEmptyLists({ ...current, on_completed: change.on_completed ? [change.on_completed, ...others] : others });
}

/** An event left with no hooks keeps no empty list, so loop_get and exports show only what is set. */
function withoutEmptyLists(hooks: LoopHooks): LoopHooks {
  return Object.fromEntries(Object.entries(hooks).filter(([, list]) => list !== undefined && list.length > 0));
}

async function refuseTakenName(db: DatabaseOrTransaction, workdir: string, name: string): Promise<void> {
  if (await findLoopByName(db, workdir, name)) throw nameTaken(workdir, name);
}

function nameTaken(workdir: string, name: string): CanopyError {
  return new CanopyError(
    'conflict',
    `A loop named '${name}' already exists in ${workdir}; choose another name (loop names are unique per workdir).`,
  );
}
