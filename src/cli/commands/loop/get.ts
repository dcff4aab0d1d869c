// `canopy loop get`: one loop with its whole graph (ids included) and its specs, archived or not.
import type { Command } from 'commander';
import { withContext } from '../../../client/context';
import { getLoop } from '../../../client/loops-service';
import { action, emit } from '../../output';
import { describeLoopDetail } from './describe';

export function registerLoopGet(loop: Command): void {
  loop
    .command('get <loop_id>')
    .description('Show a loop: its nodes, edges and ensembles with their ids, and its specs')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { json?: boolean }) => {
        emit(await withContext((ctx) => getLoop(ctx, loopId)), options, describeLoopDetail);
      }),
    );
}
