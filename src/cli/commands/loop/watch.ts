// `canopy loop watch`: a live view of one loop in a terminal, or a line per change when stdout is not a TTY.
import type { Command } from 'commander';
import { action, terminalSafe } from '../../output';

export function registerLoopWatch(loop: Command): void {
  loop
    .command('watch <loop_id>')
    .description('Follow a loop live: its graph, states, rounds, ensemble members and output; keys to pause and continue')
    .action(
      action(async (loopId: string) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { logProgress, watchInTerminal } = require('../../watch/progress') as typeof import('../../watch/progress');
        await withContext(async (ctx) => {
          if (process.stdout.isTTY && process.stdin.isTTY) await watchInTerminal(ctx, loopId);
          else await logProgress(ctx, loopId, (line) => process.stdout.write(`${terminalSafe(line)}\n`), true).done;
        });
      }),
    );
}
