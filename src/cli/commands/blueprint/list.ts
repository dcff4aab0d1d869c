// `canopy blueprint list`: the builtin and custom node blueprints.
import type { Command } from 'commander';
import { action, emit, table } from '../../output';

export function registerBlueprintList(blueprint: Command): void {
  blueprint
    .command('list')
    .description('List node blueprints, builtins first')
    .option('--json', 'print JSON')
    .action(
      action(async (options: { json?: boolean }) => {
        const { listBlueprints } = require('../../../client/blueprints-service') as typeof import('../../../client/blueprints-service');
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const blueprints = await withContext((ctx) => listBlueprints(ctx));
        emit(blueprints, options, (listed) =>
          table([
            ['NAME', 'KIND', 'ORIGIN', 'CONFIG KEYS'],
            ...listed.map((b) => [b.name, b.kind, b.builtin ? 'builtin' : 'custom', Object.keys(b.config).join(', ')]),
          ]),
        );
      }),
    );
}
