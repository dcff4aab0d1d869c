// `canopy blueprint create`: a custom blueprint, its config checked against its kind.
import { Option, type Command } from 'commander';
import { AUTHORED_NODE_KINDS } from '../../../node-kinds/catalogue';
import { action, emit } from '../../output';
import { badOption, jsonOptions, readJsonOption } from '../loop/json-option';

export function registerBlueprintCreate(blueprint: Command): void {
  const command = blueprint
    .command('create')
    .description('Create a custom blueprint: a named {kind, config} template for `canopy loop node add --blueprint`')
    .requiredOption('--name <name>', 'blueprint name (letters, digits, "_" and "-")')
    .addOption(new Option('--kind <kind>', 'kind of node it makes').choices(AUTHORED_NODE_KINDS).makeOptionMandatory());
  jsonOptions(command, 'config', 'the config template')
    .option('--json', 'print JSON')
    .action(
      action(async (options: { name: string; kind: string; json?: boolean }) => {
        const { createBlueprint } = require('../../../client/blueprints-service') as typeof import('../../../client/blueprints-service');
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const config = readJsonOption(options, 'config');
        if (!config) throw badOption('--config', 'is required: give the config template with --config or --config-file');
        const created = await withContext((ctx) => createBlueprint(ctx, { name: options.name, kind: options.kind, config }));
        emit(created, options, (b) => `Created ${b.kind} blueprint '${b.name}'.`);
      }),
    );
}
