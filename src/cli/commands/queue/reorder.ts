// `canopy queue reorder`: give a queue's specs a new order, listing each exactly once.
import type { Command } from 'commander';
import { action, emit } from '../../output';

export function registerQueueReorder(queue: Command): void {
  queue
    .command('reorder <queue_id> <spec_ids...>')
    .description('Put a queue’s specs in the given order (each of them exactly once)')
    .option('--json', 'print JSON')
    .action(
      action(async (queueId: string, specIds: string[], options: { json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { reorderQueue } = require('../../../client/queues-service') as typeof import('../../../client/queues-service');
        const { describeQueue } = require('./describe') as typeof import('./describe');
        const updated = await withContext((ctx) => reorderQueue(ctx, { queue_id: queueId, spec_ids: specIds }));
        emit(updated, options, (q) => `Now ${describeQueue(q)}.`);
      }),
    );
}
