// `canopy loop restore`: bring an archived loop back into `loop list`.
import type { Command } from 'commander';
import { action, emit } from '../../output';

export function registerLoopRestore(loop: Command): void {
  loop
    .command('restore <loop_id>')
    .description('Bring an archived loop back into `loop list`')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { restoreLoop } = require('../../../client/loops-service') as typeof import('../../../client/loops-service');
        const restored = await withContext((ctx) => restoreLoop(ctx, loopId));
        emit(restored, options, (l) => `Restored loop '${l.name}' (${l.id}).`);
      }),
    );
}
