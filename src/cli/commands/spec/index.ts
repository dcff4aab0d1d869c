// `canopy spec …`: specs bound to loops and in the standalone backlog.
import type { Command } from 'commander';
import { registerSpecCreate } from './create';
import { registerSpecDelete } from './delete';
import { registerSpecList } from './list';
import { registerSpecUpdate } from './update';

export function registerSpec(program: Command): Command {
  const spec = program.command('spec').description('Create, list, change and delete specs (bound to a loop or in the backlog)');
  registerSpecCreate(spec);
  registerSpecList(spec);
  registerSpecUpdate(spec);
  registerSpecDelete(spec);
  return spec;
}
