// `canopy loop ensemble remove`: remove an ensemble with its member and quorum nodes and its edges.
import type { Command } from 'commander';
import { withContext } from '../../../../client/context';
import { removeEnsemble } from '../../../../client/graph-service';
import { action, emit } from '../../../output';
import { describeEnsemble } from '../describe';

export function registerEnsembleRemove(ensemble: Command): void {
  ensemble
    .command('remove <loop_id> <ensemble_name>')
    .description('Remove an ensemble with its member and quorum nodes and every edge touching it')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, name: string, options: { json?: boolean }) => {
        const removed = await withContext((ctx) => removeEnsemble(ctx, { loop_id: loopId, name }));
        emit(removed, options, (e) => `Removed ${describeEnsemble(e)}.`);
      }),
    );
}
