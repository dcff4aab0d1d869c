// `canopy loop get`: one loop with its whole graph (ids included) and its specs, archived or not.
import type { Command } from 'commander';
import { action, emit } from '../../output';

export function registerLoopGet(loop: Command): void {
  loop
    .command('get <loop_id>')
    .description('Show a loop: its nodes, edges and ensembles with their ids, and its specs')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { getLoop } = require('../../../client/loops-service') as typeof import('../../../client/loops-service');
        const { describeLoopDetail } = require('../../text/describe') as typeof import('../../text/describe');
        emit(await withContext((ctx) => getLoop(ctx, loopId)), options, describeLoopDetail);
      }),
    );
}
