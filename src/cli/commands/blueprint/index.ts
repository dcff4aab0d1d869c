// `canopy blueprint …`: reusable node templates.
import type { Command } from 'commander';
import { registerBlueprintCreate } from './create';
import { registerBlueprintDelete } from './delete';
import { registerBlueprintList } from './list';

export function registerBlueprint(program: Command): Command {
  const blueprint = program.command('blueprint').description('List, create and delete node blueprints');
  registerBlueprintList(blueprint);
  registerBlueprintCreate(blueprint);
  registerBlueprintDelete(blueprint);
  return blueprint;
}
