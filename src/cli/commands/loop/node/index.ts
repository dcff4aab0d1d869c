// `canopy loop node …`: adding, changing and removing a loop's nodes.
import type { Command } from 'commander';
import { registerNodeAdd } from './add';
import { registerNodeCopy } from './copy';
import { registerNodeRemove } from './remove';
import { registerNodeUpdate } from './update';

export function registerLoopNode(loop: Command): Command {
  const node = loop.command('node').description('Add, change, remove or copy a loop’s nodes (ids from `canopy loop get`)');
  registerNodeAdd(node);
  registerNodeUpdate(node);
  registerNodeRemove(node);
  registerNodeCopy(node);
  return node;
}
