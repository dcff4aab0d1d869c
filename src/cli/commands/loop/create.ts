// `canopy loop create`: a new, empty loop bound to a workdir.
import path from 'node:path';
import type { Command } from 'commander';
import { action, emit } from '../../output';

export function registerLoopCreate(loop: Command): void {
  loop
    .command('create')
    .description('Create an empty loop (add nodes with `canopy loop node add`, or import a whole design with `canopy loop import`)')
    .requiredOption('--name <name>', 'loop name, unique within its workdir')
    .requiredOption('--workdir <dir>', 'directory the loop works in (relative to the current directory)')
    .option('--description <text>', 'what the loop is for')
    .option('--json', 'print JSON')
    .action(
      action(async (options: { name: string; workdir: string; description?: string; json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { createLoop } = require('../../../client/loops-service') as typeof import('../../../client/loops-service');
        const { describeLoop } = require('../../text/describe') as typeof import('../../text/describe');
        // A person's relative path means their shell's directory; services take only absolute ones.
        const created = await withContext((ctx) =>
          createLoop(ctx, { name: options.name, workdir: path.resolve(options.workdir), description: options.description }),
        );
        emit(created, options, (loop) => `Created loop ${describeLoop(loop)}.`);
      }),
    );
}
