// `canopy tui` (and `canopy` alone in a terminal): the full-screen app over every loop, the backlog and blueprints.
import type { Command } from 'commander';
import { CanopyError } from '../../domain/errors';
import { action } from '../output';

export function registerTui(program: Command): void {
  program
    .command('tui')
    .description('Open the terminal app: projects and their loops live, the backlog, blueprints, loop actions and the loop editor')
    .action(
      action(async () => {
        if (!process.stdout.isTTY || !process.stdin.isTTY) {
          throw new CanopyError(
            'refused',
            'canopy tui needs a terminal; without one, follow a loop with `canopy loop watch <loop_id>` and list loops with `canopy loop list`.',
          );
        }
        const { openTui } = require('../tui/open') as typeof import('../tui/open');
        await openTui(process.cwd());
      }),
    );
}
