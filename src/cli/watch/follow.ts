// Following a loop: a fresh picture every interval until the caller stops, or the loop ends.
import type { ClientContext } from '../../client/context';
import { loopPicture, type LoopPicture } from '../../client/loop-picture-service';

export const FOLLOW_INTERVAL_MS = 500;

/** A pending loop has not run yet, so following it waits for its run. */
export function hasEnded(picture: LoopPicture): boolean {
  return picture.status === 'completed' || picture.status === 'failed';
}

/**
 * Calls `onPicture` with each new picture, and waits for what it returns before the next; resolves when
 * `stop()` is called or, with untilEnd, when the loop ends. `refresh()` reads the next picture now
 * instead of at the end of the interval.
 */
export function followLoop(
  ctx: ClientContext,
  loopId: string,
  onPicture: (picture: LoopPicture) => void | Promise<void>,
  options: { untilEnd: boolean; intervalMs?: number },
): { done: Promise<void>; stop(): void; refresh(): void } {
  let stopped = false;
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const done = (async () => {
    while (!stopped) {
      const picture = await loopPicture(ctx, loopId);
      await onPicture(picture);
      if (options.untilEnd && hasEnded(picture)) return;
      await pause(options.intervalMs ?? FOLLOW_INTERVAL_MS);
    }
  })();
  return {
    done,
    stop() {
      stopped = true;
      wake?.();
    },
    refresh: () => wake?.(),
  };
}
