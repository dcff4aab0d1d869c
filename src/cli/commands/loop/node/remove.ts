// `canopy loop node remove`: remove a node with every edge touching it.
import type { Command } from 'commander';
import { action, emit } from '../../../output';

export function registerNodeRemove(node: Command): void {
  node
    .command('remove <node_id>')
    .description('Remove a node and every edge touching it')
    .option('--loop <loop_id>', 'refuse unless the node belongs to this loop')
    .option('--json', 'print JSON')
    .action(
      action(async (nodeId: string, options: { loop?: string; json?: boolean }) => {
        const { withContext } = require('../../../../client/context') as typeof import('../../../../client/context');
        const { removeNode } = require('../../../../client/graph-service') as typeof import('../../../../client/graph-service');
        const { describeNode } = require('../../../text/describe') as typeof import('../../../text/describe');
        const removed = await withContext((ctx) => removeNode(ctx, { loop_id: options.loop, node_id: nodeId }));
        emit(removed, options, (n) => `Removed ${describeNode(n)} and its edges.`);
      }),
    );
}
