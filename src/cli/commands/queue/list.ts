// `canopy queue list`: every queue with its specs in order.
import type { Command } from 'commander';
import { withContext } from '../../../client/context';
import { listQueues } from '../../../client/queues-service';
import { action, emit } from '../../output';
import { describeQueue } from './describe';

export function registerQueueList(queue: Command): void {
  queue
    .command('list')
    .description('List queues with their specs in order')
    .option('--json', 'print JSON')
    .action(
      action(async (options: { json?: boolean }) => {
        const queues = await withContext((ctx) => listQueues(ctx));
        emit(queues, options, (listed) =>
          listed.length ? listed.map(describeQueue).join('\n') : 'No queues. Create one with `canopy queue create`.',
        );
      }),
    );
}
