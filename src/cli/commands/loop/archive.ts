// `canopy loop archive`: hide a loop from `loop list`, keeping everything of it.
import type { Command } from 'commander';
import { withContext } from '../../../client/context';
import { archiveLoop } from '../../../client/loops-service';
import { action, emit } from '../../output';

export function registerLoopArchive(loop: Command): void {
  loop
    .command('archive <loop_id>')
    .description('Hide a loop from `loop list`; its specs and history stay, and `loop restore` brings it back')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { json?: boolean }) => {
        const archived = await withContext((ctx) => archiveLoop(ctx, loopId));
        emit(archived, options, (l) => `Archived loop '${l.name}' (${l.id}); restore it with \`canopy loop restore ${l.id}\`.`);
      }),
    );
}
