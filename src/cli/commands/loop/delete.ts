// `canopy loop delete`: delete a loop with its graph and history; its specs return to the backlog.
import type { Command } from 'commander';
import { action, emit } from '../../output';

export function registerLoopDelete(loop: Command): void {
  loop
    .command('delete <loop_id>')
    .description('Delete a loop, its graph and its run history; its specs return to the backlog (`loop archive` keeps everything)')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { deleteLoop } = require('../../../client/loops-service') as typeof import('../../../client/loops-service');
        const deleted = await withContext((ctx) => deleteLoop(ctx, loopId));
        emit(deleted, options, (d) => `Deleted loop ${d.loop_id}; its specs are in the backlog.`);
      }),
    );
}
