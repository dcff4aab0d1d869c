// Following a loop for `loop watch` and `loop run --wait`: the live terminal view, or a line per change.
import type { ClientContext } from '../../client/context';
import type { LoopPicture } from '../../client/loop-picture-service';
import { getRun } from '../../client/node-runs-service';
import { continueLoop, pauseLoop } from '../../client/runs-service';
import { outputText } from '../../graph/feedback';
import { loadWatchView } from '../load-esm';
import { approvalLines } from './approval-lines';
import { pictureChanges } from './changes';
import { followLoop } from './follow';
import { trackWaitingApprovals } from './waiting-approvals';

/** Writes a line per change, and the approvals the loop comes to wait at: until the loop ends (untilEnd) or until stopped. */
export function logProgress(ctx: ClientContext, loopId: string, write: (line: string) => void, untilEnd: boolean) {
  let previous: LoopPicture | null = null;
  const waitingAt = trackWaitingApprovals(ctx, loopId);
  return followLoop(
    ctx,
    loopId,
    async (picture) => {
      for (const line of pictureChanges(previous, picture)) write(line);
      previous = picture;
      const approvals = await waitingAt(picture);
      if (approvals.changed) for (const item of approvals.items) approvalLines(item).forEach(write);
    },
    { untilEnd },
  );
}

export async function watchInTerminal(ctx: ClientContext, loopId: string): Promise<void> {
  const { runWatchView } = await loadWatchView();
  const waitingAt = trackWaitingApprovals(ctx, loopId);
  await runWatchView({
    follow: (onPicture) =>
      followLoop(ctx, loopId, async (picture) => onPicture(picture, (await waitingAt(picture)).items), { untilEnd: false }),
    pause: async () => (await pauseLoop(ctx, loopId), 'pause requested: the loop stops after the running node'),
    continueLoop: async (strategy) => `continued (${(await continueLoop(ctx, loopId, strategy)).resumed}, ${strategy})`,
    runOutput: async (runId) => outputText(await getRun(ctx, runId)),
  });
}
