// `canopy queue delete`: delete a queue (its specs stay).
import type { Command } from 'commander';
import { action, emit } from '../../output';

export function registerQueueDelete(queue: Command): void {
  queue
    .command('delete <queue_id>')
    .description('Delete a queue; its specs stay')
    .option('--json', 'print JSON')
    .action(
      action(async (queueId: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { deleteQueue } = require('../../../client/queues-service') as typeof import('../../../client/queues-service');
        const deleted = await withContext((ctx) => deleteQueue(ctx, { queue_id: queueId }));
        emit(deleted, options, (d) => `Deleted queue ${d.queue_id}.`);
      }),
    );
}
