// `canopy loop hook remove`: remove one hook by its event and index (the ones after it move up).
import type { Command } from 'commander';
import { HOOK_EVENTS } from '../../../../domain/vocabulary';
import { action, emit } from '../../../output';

export function registerHookRemove(hook: Command): void {
  hook
    .command('remove <loop_id>')
    .description('Remove one hook, named by its event and its index in `loop hook list`')
    .requiredOption('--event <event>', `the event: ${HOOK_EVENTS.join(', ')}`)
    .requiredOption('--index <n>', 'the hook’s index in its event’s list, from 0', Number)
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { event: string; index: number; json?: boolean }) => {
        const { withContext } = require('../../../../client/context') as typeof import('../../../../client/context');
        const { removeHook } = require('../../../../client/hooks-service') as typeof import('../../../../client/hooks-service');
        const { hookLines } = require('../../../text/describe') as typeof import('../../../text/describe');
        const loop = await withContext((ctx) => removeHook(ctx, { loop_id: loopId, event: options.event, index: options.index }));
        emit(loop.hooks, options, (hooks) => `Hooks of loop ${loop.name} (${loop.id}):\n${hookLines(hooks).join('\n') || '(none)'}`);
      }),
    );
}
