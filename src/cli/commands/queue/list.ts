// `canopy queue list`: every queue with its specs in order.
import type { Command } from 'commander';
import { action, emit } from '../../output';

export function registerQueueList(queue: Command): void {
  queue
    .command('list')
    .description('List queues with their specs in order')
    .option('--json', 'print JSON')
    .action(
      action(async (options: { json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { listQueues } = require('../../../client/queues-service') as typeof import('../../../client/queues-service');
        const { describeQueue } = require('./describe') as typeof import('./describe');
        const queues = await withContext((ctx) => listQueues(ctx));
        emit(queues, options, (listed) =>
          listed.length ? listed.map(describeQueue).join('\n') : 'No queues. Create one with `canopy queue create`.',
        );
      }),
    );
}
