// `canopy loop hook list`: every event hook of a loop, by event and index.
import type { Command } from 'commander';
import { withContext } from '../../../../client/context';
import { requireLoop } from '../../../../client/design-service';
import { HOOK_EVENTS, isCommandHook, type Hook, type LoopHooks } from '../../../../domain/hooks';
import { action, emit } from '../../../output';

export function registerHookList(hook: Command): void {
  hook
    .command('list <loop_id>')
    .description('List a loop’s event hooks with the index each has in its event’s list')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { json?: boolean }) => {
        const loop = await withContext((ctx) => requireLoop(ctx.db, loopId));
        emit(loop.hooks, options, (hooks) => hookLines(hooks).join('\n') || 'No hooks.');
      }),
    );
}

/** One line per hook: `on_failed[0] command: ./notify.sh (timeout 5 min)`. */
export function hookLines(hooks: LoopHooks): string[] {
  return HOOK_EVENTS.flatMap((event) => (hooks[event] ?? []).map((hook, index) => `${event}[${index}] ${hookText(hook)}`));
}

function hookText(hook: Hook): string {
  const timeout = hook.timeout_minutes === undefined ? '' : ` (timeout ${hook.timeout_minutes} min)`;
  if (isCommandHook(hook)) return `command: ${hook.command}${timeout}`;
  return `agent ${hook.platform}${hook.model ? `/${hook.model}` : ''}: ${hook.prompt}${timeout}`;
}
