// `canopy loop node copy`: a node's kind and config under a new name, in its loop or another; no edges.
import type { Command } from 'commander';
import { action, emit } from '../../../output';

export function registerNodeCopy(node: Command): void {
  node
    .command('copy <node_id>')
    .description('Copy a node (its kind and config) under a new name into its loop or another; its edges are not copied')
    .requiredOption('--name <name>', 'the copy’s name')
    .option('--to-loop <loop_id>', 'the loop the copy goes to (default: the node’s own)')
    .option('--loop <loop_id>', 'refuse unless the node belongs to this loop')
    .option('--json', 'print JSON')
    .action(
      action(async (nodeId: string, options: { name: string; toLoop?: string; loop?: string; json?: boolean }) => {
        const { withContext } = require('../../../../client/context') as typeof import('../../../../client/context');
        const { copyNode } = require('../../../../client/graph-service') as typeof import('../../../../client/graph-service');
        const { describeNode } = require('../../../text/describe') as typeof import('../../../text/describe');
        const request = { loop_id: options.loop, node_id: nodeId, new_name: options.name, to_loop_id: options.toLoop };
        emit(
          await withContext((ctx) => copyNode(ctx, request)),
          options,
          (n) => `Copied to ${describeNode(n)}; wire it with \`canopy loop edge add\`.`,
        );
      }),
    );
}
