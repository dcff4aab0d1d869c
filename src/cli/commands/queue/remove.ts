// `canopy queue remove`: take a spec out of a queue (the spec stays).
import type { Command } from 'commander';
import { withContext } from '../../../client/context';
import { removeQueueSpec } from '../../../client/queues-service';
import { action, emit } from '../../output';
import { describeQueue } from './describe';

export function registerQueueRemove(queue: Command): void {
  queue
    .command('remove <queue_id> <spec_id>')
    .description('Take a spec out of a queue; the spec itself stays')
    .option('--json', 'print JSON')
    .action(
      action(async (queueId: string, specId: string, options: { json?: boolean }) => {
        const updated = await withContext((ctx) => removeQueueSpec(ctx, { queue_id: queueId, spec_id: specId }));
        emit(updated, options, (q) => `Now ${describeQueue(q)}.`);
      }),
    );
}
