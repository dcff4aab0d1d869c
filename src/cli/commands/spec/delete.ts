// `canopy spec delete`: delete a spec (queues holding it drop it).
import type { Command } from 'commander';
import { action, emit } from '../../output';

export function registerSpecDelete(spec: Command): void {
  spec
    .command('delete <spec_id>')
    .description('Delete a spec; queues holding it drop it')
    .option('--json', 'print JSON')
    .action(
      action(async (specId: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { deleteSpec } = require('../../../client/specs-service') as typeof import('../../../client/specs-service');
        const deleted = await withContext((ctx) => deleteSpec(ctx, { spec_id: specId }));
        emit(deleted, options, (d) => `Deleted spec ${d.spec_id}.`);
      }),
    );
}
