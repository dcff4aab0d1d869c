// `canopy loop ensemble …`: adding, changing and removing a loop's ensembles, each as one unit.
import type { Command } from 'commander';
import { registerEnsembleAdd } from './add';
import { registerEnsembleRemove } from './remove';
import { registerEnsembleUpdate } from './update';

export function registerLoopEnsemble(loop: Command): Command {
  const ensemble = loop.command('ensemble').description('Add, change or remove a loop’s ensembles');
  registerEnsembleAdd(ensemble);
  registerEnsembleUpdate(ensemble);
  registerEnsembleRemove(ensemble);
  return ensemble;
}
