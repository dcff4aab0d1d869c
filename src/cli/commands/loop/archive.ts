// `canopy loop archive`: hide a loop from `loop list`, keeping everything of it.
import type { Command } from 'commander';
import { action, emit } from '../../output';

export function registerLoopArchive(loop: Command): void {
  loop
    .command('archive <loop_id>')
    .description('Hide a loop from `loop list`; its specs and history stay, and `loop restore` brings it back')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { archiveLoop } = require('../../../client/loops-service') as typeof import('../../../client/loops-service');
        const archived = await withContext((ctx) => archiveLoop(ctx, loopId));
        emit(archived, options, (l) => `Archived loop '${l.name}' (${l.id}); restore it with \`canopy loop restore ${l.id}\`.`);
      }),
    );
}
