// `canopy loop hook …`: listing, adding and removing a loop's event hooks.
import type { Command } from 'commander';
import { registerHookAdd } from './add';
import { registerHookList } from './list';
import { registerHookRemove } from './remove';

export function registerLoopHook(loop: Command): Command {
  const hook = loop.command('hook').description('List, add or remove the hooks a loop runs on its events');
  registerHookList(hook);
  registerHookAdd(hook);
  registerHookRemove(hook);
  return hook;
}
