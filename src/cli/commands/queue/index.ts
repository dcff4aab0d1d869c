// `canopy queue …`: ordered lists of specs a loop run can drain instead of the loop's own.
import type { Command } from 'commander';
import { registerQueueAdd } from './add';
import { registerQueueCreate } from './create';
import { registerQueueDelete } from './delete';
import { registerQueueList } from './list';
import { registerQueueRemove } from './remove';
import { registerQueueReorder } from './reorder';

export function registerQueue(program: Command): Command {
  const queue = program.command('queue').description('Create, fill, reorder and delete queues of specs');
  registerQueueCreate(queue);
  registerQueueList(queue);
  registerQueueAdd(queue);
  registerQueueRemove(queue);
  registerQueueReorder(queue);
  registerQueueDelete(queue);
  return queue;
}
