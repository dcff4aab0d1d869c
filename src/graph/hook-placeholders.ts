// Which placeholders a loop's hooks may use: each event has its own values, and a hook naming one
// its event does not give is refused when it is written, with the list it may use.
import type { Issue } from '../domain/errors';
import { HOOK_EVENTS, isCommandHook, type Hook, type HookEvent, type LoopHooks } from '../domain/hooks';
import { HOOK_PLACEHOLDERS, unknownPlaceholders } from './templates';

/** Every unknown placeholder in the hooks, as issues under `field` (e.g. `hooks.on_failed.0.prompt`). */
export function hookPlaceholderIssues(hooks: LoopHooks, field = 'hooks'): Issue[] {
  return HOOK_EVENTS.flatMap((event) =>
    (hooks[event] ?? []).flatMap((hook, index) => {
      const issue = placeholderIssue(event, hook);
      return issue ? [{ field: `${field}.${event}.${index}.${isCommandHook(hook) ? 'command' : 'prompt'}`, message: issue }] : [];
    }),
  );
}

/** What is wrong with the placeholders of one hook of `event`, or null. */
export function placeholderIssue(event: HookEvent, hook: Hook): string | null {
  const allowed = HOOK_PLACEHOLDERS[event];
  const unknown = unknownPlaceholders(hook.command ?? hook.prompt ?? '', allowed);
  if (!unknown.length) return null;
  return `unknown placeholder ${unknown.map(braced).join(', ')}; a hook of ${event} may use only ${allowed.map(braced).join(', ')}`;
}

export function braced(name: string): string {
  return `{{${name}}}`;
}
