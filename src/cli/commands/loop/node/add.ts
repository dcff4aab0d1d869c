// `canopy loop node add`: a node from a kind and config, or from a blueprint with overrides.
import { Option, type Command } from 'commander';
import { AUTHORED_NODE_KINDS, authoredKindLines } from '../../../../node-kinds/catalogue';
import { action, emit } from '../../../output';
import { jsonOptions, readJsonOption } from '../json-option';

export function registerNodeAdd(node: Command): void {
  const command = node
    .command('add <loop_id>')
    .description('Add a node; give --kind and --config, or --blueprint with optional --config-overrides')
    .requiredOption('--name <name>', 'node name, unique within the loop')
    .addOption(new Option('--kind <kind>', 'kind of node (taken from the blueprint when one is named)').choices(AUTHORED_NODE_KINDS))
    .option('--position <n>', 'canvas order (default: after every other node)', Number)
    .option('--blueprint <name>', 'blueprint to start from (see `canopy blueprint list`)')
    .addHelpText(
      'after',
      `\nKinds:\n${authoredKindLines()
        .map((line) => `  ${line}`)
        .join('\n')}`,
    );
  jsonOptions(command, 'config', 'the node’s config');
  jsonOptions(command, 'config-overrides', 'keys laid over the blueprint’s config')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { name: string; kind?: string; position?: number; blueprint?: string; json?: boolean }) => {
        const { withContext } = require('../../../../client/context') as typeof import('../../../../client/context');
        const { addNode } = require('../../../../client/graph-service') as typeof import('../../../../client/graph-service');
        const { describeNode } = require('../../../text/describe') as typeof import('../../../text/describe');
        const added = await withContext((ctx) =>
          addNode(ctx, {
            loop_id: loopId,
            name: options.name,
            kind: options.kind,
            position: options.position,
            blueprint: options.blueprint,
            config: readJsonOption(options, 'config'),
            config_overrides: readJsonOption(options, 'config-overrides'),
          }),
        );
        emit(added, options, (n) => `Added ${describeNode(n)}.`);
      }),
    );
}
