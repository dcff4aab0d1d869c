// `canopy loop list`: every loop, archived ones only with --all.
import type { Command } from 'commander';
import { action, emit, table } from '../../output';

export function registerLoopList(loop: Command): void {
  loop
    .command('list')
    .description('List loops (archived ones too with --all)')
    .option('--all', 'include archived loops')
    .option('--json', 'print JSON')
    .action(
      action(async (options: { all?: boolean; json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { listLoops } = require('../../../client/loops-service') as typeof import('../../../client/loops-service');
        const loops = await withContext((ctx) => listLoops(ctx, { include_archived: options.all ?? false }));
        emit(loops, options, (listed) =>
          listed.length
            ? table([
                ['ID', 'NAME', 'STATUS', 'WORKDIR'],
                ...listed.map((l) => [l.id, l.name, l.archived ? `${l.status} (archived)` : l.status, l.workdir]),
              ])
            : 'No loops. Create one with `canopy loop create` or `canopy loop import`.',
        );
      }),
    );
}
