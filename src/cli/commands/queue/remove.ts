// `canopy queue remove`: take a spec out of a queue (the spec stays).
import type { Command } from 'commander';
import { action, emit } from '../../output';

export function registerQueueRemove(queue: Command): void {
  queue
    .command('remove <queue_id> <spec_id>')
    .description('Take a spec out of a queue; the spec itself stays')
    .option('--json', 'print JSON')
    .action(
      action(async (queueId: string, specId: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { removeQueueSpec } = require('../../../client/queues-service') as typeof import('../../../client/queues-service');
        const { describeQueue } = require('./describe') as typeof import('./describe');
        const updated = await withContext((ctx) => removeQueueSpec(ctx, { queue_id: queueId, spec_id: specId }));
        emit(updated, options, (q) => `Now ${describeQueue(q)}.`);
      }),
    );
}
