// `canopy loop ensemble …`: adding, changing and removing a loop's ensembles, each as one unit.
import type { Command } from 'commander';
import { registerEnsembleAdd } from './add';
import { registerEnsembleCopy } from './copy';
import { registerEnsembleRemove } from './remove';
import { registerEnsembleUpdate } from './update';

export function registerLoopEnsemble(loop: Command): Command {
  const ensemble = loop.command('ensemble').description('Add, change, remove or copy a loop’s ensembles');
  registerEnsembleAdd(ensemble);
  registerEnsembleUpdate(ensemble);
  registerEnsembleRemove(ensemble);
  registerEnsembleCopy(ensemble);
  return ensemble;
}
