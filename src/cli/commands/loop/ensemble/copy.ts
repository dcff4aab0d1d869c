// `canopy loop ensemble copy`: an ensemble's members and settings under a new name, in its loop or another; no wiring.
import type { Command } from 'commander';
import { action, emit } from '../../../output';

export function registerEnsembleCopy(ensemble: Command): void {
  ensemble
    .command('copy <loop_id> <ensemble_name>')
    .description('Copy an ensemble (members and settings) under a new name into its loop or another; its wiring is not copied')
    .requiredOption('--name <name>', 'the copy’s name')
    .option('--to-loop <loop_id>', 'the loop the copy goes to (default: the same loop)')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, name: string, options: { name: string; toLoop?: string; json?: boolean }) => {
        const { withContext } = require('../../../../client/context') as typeof import('../../../../client/context');
        const { copyEnsemble } = require('../../../../client/graph-service') as typeof import('../../../../client/graph-service');
        const { describeEnsemble } = require('../../../text/describe') as typeof import('../../../text/describe');
        const request = { loop_id: loopId, name, new_name: options.name, to_loop_id: options.toLoop };
        emit(
          await withContext((ctx) => copyEnsemble(ctx, request)),
          options,
          (e) => `Copied to ${describeEnsemble(e)}; wire it with \`canopy loop ensemble update\`.`,
        );
      }),
    );
}
