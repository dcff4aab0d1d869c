// `canopy queue create`: a new, empty queue of specs.
import type { Command } from 'commander';
import { withContext } from '../../../client/context';
import { createQueue } from '../../../client/queues-service';
import { action, emit } from '../../output';
import { describeQueue } from './describe';

export function registerQueueCreate(queue: Command): void {
  queue
    .command('create')
    .description('Create an empty queue; fill it with `canopy queue add`')
    .requiredOption('--name <name>', 'queue name, unique')
    .option('--json', 'print JSON')
    .action(
      action(async (options: { name: string; json?: boolean }) => {
        const created = await withContext((ctx) => createQueue(ctx, { name: options.name }));
        emit(created, options, (q) => `Created ${describeQueue(q)}.`);
      }),
    );
}
