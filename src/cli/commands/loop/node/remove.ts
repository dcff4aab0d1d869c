// `canopy loop node remove`: remove a node with every edge touching it.
import type { Command } from 'commander';
import { withContext } from '../../../../client/context';
import { removeNode } from '../../../../client/graph-service';
import { action, emit } from '../../../output';
import { describeNode } from '../describe';

export function registerNodeRemove(node: Command): void {
  node
    .command('remove <node_id>')
    .description('Remove a node and every edge touching it')
    .option('--loop <loop_id>', 'refuse unless the node belongs to this loop')
    .option('--json', 'print JSON')
    .action(
      action(async (nodeId: string, options: { loop?: string; json?: boolean }) => {
        const removed = await withContext((ctx) => removeNode(ctx, { loop_id: options.loop, node_id: nodeId }));
        emit(removed, options, (n) => `Removed ${describeNode(n)} and its edges.`);
      }),
    );
}
