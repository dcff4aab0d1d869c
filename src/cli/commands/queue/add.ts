// `canopy queue add`: put a spec into a queue, at the end or at an index.
import type { Command } from 'commander';
import { action, emit } from '../../output';

export function registerQueueAdd(queue: Command): void {
  queue
    .command('add <queue_id> <spec_id>')
    .description('Add a spec to a queue')
    .option('--index <n>', 'place in the queue, 0 first (default: at the end)', Number)
    .option('--json', 'print JSON')
    .action(
      action(async (queueId: string, specId: string, options: { index?: number; json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { addQueueSpec } = require('../../../client/queues-service') as typeof import('../../../client/queues-service');
        const { describeQueue } = require('./describe') as typeof import('./describe');
        const updated = await withContext((ctx) => addQueueSpec(ctx, { queue_id: queueId, spec_id: specId, index: options.index }));
        emit(updated, options, (q) => `Now ${describeQueue(q)}.`);
      }),
    );
}
