// `canopy queue create`: a new, empty queue of specs.
import type { Command } from 'commander';
import { action, emit } from '../../output';

export function registerQueueCreate(queue: Command): void {
  queue
    .command('create')
    .description('Create an empty queue; fill it with `canopy queue add`')
    .requiredOption('--name <name>', 'queue name, unique')
    .option('--json', 'print JSON')
    .action(
      action(async (options: { name: string; json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { createQueue } = require('../../../client/queues-service') as typeof import('../../../client/queues-service');
        const { describeQueue } = require('./describe') as typeof import('./describe');
        const created = await withContext((ctx) => createQueue(ctx, { name: options.name }));
        emit(created, options, (q) => `Created ${describeQueue(q)}.`);
      }),
    );
}
