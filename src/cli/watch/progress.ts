// Following a loop for `loop watch` and `loop run --wait`: the live terminal view, or a line per change.
import type { ClientContext } from '../../client/context';
import type { LoopPicture } from '../../client/loop-picture-service';
import { getRun } from '../../client/node-runs-service';
import { continueLoop, pauseLoop } from '../../client/runs-service';
import { outputText } from '../../graph/feedback';
import { loadWatchView } from '../load-esm';
import { pictureChanges } from './changes';
import { followLoop } from './follow';

/** Writes a line per change: until the loop ends (untilEnd) or until stopped. */
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

export async function watchInTerminal(ctx: ClientContext, loopId: string): Promise<void> {
  const { runWatchView } = await loadWatchView();
  await runWatchView({
    follow: (onPicture) => followLoop(ctx, loopId, onPicture, { untilEnd: false }),
    pause: async () => (await pauseLoop(ctx, loopId), 'pause requested: the loop stops after the running node'),
    continueLoop: async (strategy) => `continued (${(await continueLoop(ctx, loopId, strategy)).resumed}, ${strategy})`,
    runOutput: async (runId) => outputText(await getRun(ctx, runId)),
  });
}
