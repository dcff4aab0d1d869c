// `canopy loop node …`: adding, changing and removing a loop's nodes.
import type { Command } from 'commander';
import { registerNodeAdd } from './add';
import { registerNodeRemove } from './remove';
import { registerNodeUpdate } from './update';

export function registerLoopNode(loop: Command): Command {
  const node = loop.command('node').description('Add, change or remove a loop’s nodes (ids from `canopy loop get`)');
  registerNodeAdd(node);
  registerNodeUpdate(node);
  registerNodeRemove(node);
  return node;
}
