// `canopy loop hook list`: every event hook of a loop, by event and index.
import type { Command } from 'commander';
import { action, emit } from '../../../output';

export function registerHookList(hook: Command): void {
  hook
    .command('list <loop_id>')
    .description('List a loop’s event hooks with the index each has in its event’s list')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../../client/context') as typeof import('../../../../client/context');
        const { requireLoop } = require('../../../../client/design-service') as typeof import('../../../../client/design-service');
        const { hookLines } = require('../../../text/describe') as typeof import('../../../text/describe');
        const loop = await withContext((ctx) => requireLoop(ctx.db, loopId));
        emit(loop.hooks, options, (hooks) => hookLines(hooks).join('\n') || 'No hooks.');
      }),
    );
}
