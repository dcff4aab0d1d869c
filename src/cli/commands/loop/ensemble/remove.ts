// `canopy loop ensemble remove`: remove an ensemble with its member and quorum nodes and its edges.
import type { Command } from 'commander';
import { action, emit } from '../../../output';

export function registerEnsembleRemove(ensemble: Command): void {
  ensemble
    .command('remove <loop_id> <ensemble_name>')
    .description('Remove an ensemble with its member and quorum nodes and every edge touching it')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, name: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../../client/context') as typeof import('../../../../client/context');
        const { removeEnsemble } = require('../../../../client/graph-service') as typeof import('../../../../client/graph-service');
        const { describeEnsemble } = require('../../../text/describe') as typeof import('../../../text/describe');
        const removed = await withContext((ctx) => removeEnsemble(ctx, { loop_id: loopId, name }));
        emit(removed, options, (e) => `Removed ${describeEnsemble(e)}.`);
      }),
    );
}
