// The `canopy` command line: one file per command, assembled here.
import { Command } from 'commander';
import { packageVersion, VERSION_FLAGS } from '../project';
import { registerApprovals } from './commands/approvals';
import { registerBlueprint } from './commands/blueprint';
import { registerCodecServer } from './commands/codec-server';
import { registerDoctor } from './commands/doctor';
import { registerLoop } from './commands/loop';
import { registerLoopLifecycle } from './commands/loop/lifecycle';
import { registerMcp } from './commands/mcp';
import { registerNode } from './commands/node';
import { registerQueue } from './commands/queue';
import { registerSandbox } from './commands/sandbox';
import { registerSpec } from './commands/spec';
import { registerTui } from './commands/tui';
import { registerUp } from './commands/up';
import { registerWeb } from './commands/web';
import { registerWorker } from './commands/worker';

export function buildProgram(): Command {
  const program = new Command('canopy')
    .description('Durable graphs of AI coding agents, shell checks and gates, run unattended on Temporal')
    .version(packageVersion(), VERSION_FLAGS, 'print the canopy version')
    .showHelpAfterError();
  registerUp(program);
  registerWorker(program);
  registerCodecServer(program);
  registerDoctor(program);
  registerNode(program);
  registerLoopLifecycle(registerLoop(program));
  registerApprovals(program);
  registerSpec(program);
  registerQueue(program);
  registerBlueprint(program);
  registerSandbox(program);
  registerMcp(program);
  registerTui(program);
  registerWeb(program);
  return program;
}

/** `canopy` alone opens the terminal app in a terminal, and prints the help elsewhere. */
export async function main(argv: string[] = process.argv): Promise<void> {
  const alone = argv.length <= 2 && process.stdin.isTTY && process.stdout.isTTY;
  await buildProgram().parseAsync(alone ? [...argv, 'tui'] : argv);
}
