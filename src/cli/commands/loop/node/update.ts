// `canopy loop node update`: rename, move or replace the config of a node; its id stays.
import type { Command } from 'commander';
import { action, emit } from '../../../output';
import { jsonOptions, readJsonOption } from '../json-option';

export function registerNodeUpdate(node: Command): void {
  const command = node
    .command('update <node_id>')
    .description(
      'Change a node’s name, position or config (the config is replaced whole); ensemble members change through `loop ensemble update`',
    )
    .option('--loop <loop_id>', 'refuse unless the node belongs to this loop')
    .option('--name <name>', 'new name')
    .option('--position <n>', 'new canvas position', Number);
  jsonOptions(command, 'config', 'the node’s new config')
    .option('--json', 'print JSON')
    .action(
      action(async (nodeId: string, options: { loop?: string; name?: string; position?: number; json?: boolean }) => {
        const { withContext } = require('../../../../client/context') as typeof import('../../../../client/context');
        const { updateNode } = require('../../../../client/graph-service') as typeof import('../../../../client/graph-service');
        const { describeNode } = require('../../../text/describe') as typeof import('../../../text/describe');
        const updated = await withContext((ctx) =>
          updateNode(ctx, {
            loop_id: options.loop,
            node_id: nodeId,
            name: options.name,
            position: options.position,
            config: readJsonOption(options, 'config'),
          }),
        );
        emit(updated, options, (n) => `Updated ${describeNode(n)}.`);
      }),
    );
}
