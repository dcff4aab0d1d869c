// `canopy loop hook list`: every event hook of a loop, by event and index.
import type { Command } from 'commander';
import { withContext } from '../../../../client/context';
import { requireLoop } from '../../../../client/design-service';
import { action, emit } from '../../../output';
import { hookLines } from '../describe';

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
