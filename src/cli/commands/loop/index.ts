// `canopy loop …`: loops as records, their graphs, export and import. Run control commands are added to this group elsewhere.
import type { Command } from 'commander';
import { registerLoopArchive } from './archive';
import { registerLoopCreate } from './create';
import { registerLoopDelete } from './delete';
import { registerLoopEdge } from './edge';
import { registerLoopEnsemble } from './ensemble';
import { registerLoopExport } from './export';
import { registerLoopGet } from './get';
import { registerLoopHook } from './hook';
import { registerLoopImport } from './import';
import { registerLoopList } from './list';
import { registerLoopNode } from './node';
import { registerLoopPreflight } from './preflight';
import { registerLoopRestore } from './restore';
import { registerLoopUpdate } from './update';

export function registerLoop(program: Command): Command {
  const loop = program.command('loop').description('Create, inspect, edit, export and import loops');
  registerLoopCreate(loop);
  registerLoopList(loop);
  registerLoopGet(loop);
  registerLoopUpdate(loop);
  registerLoopExport(loop);
  registerLoopImport(loop);
  registerLoopArchive(loop);
  registerLoopRestore(loop);
  registerLoopDelete(loop);
  registerLoopPreflight(loop);
  registerLoopNode(loop);
  registerLoopEdge(loop);
  registerLoopEnsemble(loop);
  registerLoopHook(loop);
  return loop;
}
