// Adding or removing one event hook at a time (the CLI's `loop hook`), through the same update
// that loop_update's `hooks` makes.
import { z } from 'zod';
import { Id } from '../domain/common';
import { invalidInput, parseOrThrow } from '../domain/errors';
import { Hook, HOOK_EVENTS, HookEvent } from '../domain/hooks';
import type { Loop } from '../domain/loop';
import { placeholderIssue } from '../graph/hook-placeholders';
import type { ClientContext } from './context';
import { requireLoop } from './design-service';
import { updateLoop } from './loops-service';

export const AddHookRequest = z
  .object({
    loop_id: Id,
    event: HookEvent.describe(`The event the hook runs on: ${HOOK_EVENTS.join(', ')}`),
    hook: Hook,
  })
  .strict();

export const RemoveHookRequest = z
  .object({
    loop_id: Id,
    event: HookEvent.describe(`The event whose hook to remove: ${HOOK_EVENTS.join(', ')}`),
    index: z.number().int('must be a whole number').min(0, 'must be 0 or more').describe('The hook’s index in the event’s list, from 0'),
  })
  .strict();

/** Appends a hook to its event's list. */
export async function addHook(ctx: ClientContext, request: unknown): Promise<Loop> {
  const { loop_id, event, hook } = parseOrThrow(AddHookRequest, request, 'The hook');
  const loop = await requireLoop(ctx.db, loop_id);
  const issue = placeholderIssue(event, hook);
  if (issue) throw invalidInput('The hook', [{ field: hook.command === undefined ? 'hook.prompt' : 'hook.command', message: issue }]);
  return updateLoop(ctx, { loop_id, hooks: { ...loop.hooks, [event]: [...(loop.hooks[event] ?? []), hook] } });
}

/** Removes one hook by its event and index; the ones after it move up. */
export async function removeHook(ctx: ClientContext, request: unknown): Promise<Loop> {
  const { loop_id, event, index } = parseOrThrow(RemoveHookRequest, request, 'The request');
  const loop = await requireLoop(ctx.db, loop_id);
  const list = loop.hooks[event] ?? [];
  if (index >= list.length) {
    const has = list.length ? `indexes 0 to ${list.length - 1}` : 'none';
    throw invalidInput('The request', [
      {
        field: 'index',
        message: `the loop has no ${event} hook ${index} (it has ${has}); list them with \`canopy loop hook list ${loop.id}\``,
      },
    ]);
  }
  return updateLoop(ctx, { loop_id, hooks: { ...loop.hooks, [event]: list.filter((_, at) => at !== index) } });
}
