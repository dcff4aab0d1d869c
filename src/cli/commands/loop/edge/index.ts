// `canopy loop edge …`: adding, changing and removing a loop's edges.
import type { Command } from 'commander';
import { registerEdgeAdd } from './add';
import { registerEdgeRemove } from './remove';
import { registerEdgeUpdate } from './update';

export function registerLoopEdge(loop: Command): Command {
  const edge = loop.command('edge').description('Add, change or remove a loop’s edges (ids from `canopy loop get`)');
  registerEdgeAdd(edge);
  registerEdgeUpdate(edge);
  registerEdgeRemove(edge);
  return edge;
}
