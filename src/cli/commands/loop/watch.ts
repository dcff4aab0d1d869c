// `canopy loop watch`: a live view of one loop in a terminal, or a line per change when stdout is not a TTY.
import type { Command } from 'commander';
import { withContext, type ClientContext } from '../../../client/context';
import type { LoopPicture } from '../../../client/loop-picture-service';
import { getRun } from '../../../client/node-runs-service';
import { continueLoop, pauseLoop } from '../../../client/runs-service';
import { outputText } from '../../../graph/feedback';
import { action, terminalSafe } from '../../output';
import { pictureChanges } from '../../watch/changes';
import { followLoop } from '../../watch/follow';

export function registerLoopWatch(loop: Command): void {
  loop
    .command('watch <loop_id>')
    .description('Follow a loop live: its graph, states, rounds, ensemble members and output; keys to pause and continue')
    .action(
      action(async (loopId: string) => {
        await withContext(async (ctx) => {
          if (process.stdout.isTTY && process.stdin.isTTY) await watchInTerminal(ctx, loopId);
          else await logProgress(ctx, loopId, (line) => process.stdout.write(`${terminalSafe(line)}\n`), true).done;
        });
      }),
    );
}

/** Writes a line per change: until the loop ends (untilEnd) or until stopped. `loop run --wait` prints the same. */
export function logProgress(ctx: ClientContext, loopId: string, write: (line: string) => void, untilEnd: boolean) {
  let previous: LoopPicture | null = null;
  return followLoop(
    ctx,
    loopId,
    (picture) => {
      for (const line of pictureChanges(previous, picture)) write(line);
      previous = picture;
    },
    { untilEnd },
  );
}

async function watchInTerminal(ctx: ClientContext, loopId: string): Promise<void> {
  const { runWatchView } = await import('../../watch/view.mjs');
  await runWatchView({
    follow: (onPicture) => followLoop(ctx, loopId, onPicture, { untilEnd: false }),
    pause: async () => (await pauseLoop(ctx, loopId), 'pause requested: the loop stops after the running node'),
    continueLoop: async (strategy) => `continued (${(await continueLoop(ctx, loopId, strategy)).resumed}, ${strategy})`,
    runOutput: async (runId) => outputText(await getRun(ctx, runId)),
  });
}
