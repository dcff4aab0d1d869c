// `canopy sandbox …`: the git worktrees sandboxed runs work in.
import type { Command } from 'commander';
import { registerSandboxDiscard } from './discard';
import { registerSandboxLand } from './land';
import { registerSandboxList } from './list';

export function registerSandbox(program: Command): Command {
  const sandbox = program.command('sandbox').description('List, land and discard the git worktrees of sandboxed runs (loop run --sandbox)');
  registerSandboxList(sandbox);
  registerSandboxLand(sandbox);
  registerSandboxDiscard(sandbox);
  return sandbox;
}
