// `canopy blueprint delete`: delete a custom blueprint (builtins cannot be deleted).
import type { Command } from 'commander';
import { action, emit } from '../../output';

export function registerBlueprintDelete(blueprint: Command): void {
  blueprint
    .command('delete <name>')
    .description('Delete a custom blueprint; nodes made from it keep their config')
    .option('--json', 'print JSON')
    .action(
      action(async (name: string, options: { json?: boolean }) => {
        const { deleteBlueprint } = require('../../../client/blueprints-service') as typeof import('../../../client/blueprints-service');
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const deleted = await withContext((ctx) => deleteBlueprint(ctx, { name }));
        emit(deleted, options, (d) => `Deleted blueprint '${d.name}'.`);
      }),
    );
}
