// How the long-running commands (up, worker, codec-server) are stopped: by SIGINT or SIGTERM, at any
// stage, from the first thing they start to the last they stop.

/**
 * Runs `serve` (its start-up, then its service until `stop` is aborted, then its own stop) with
 * SIGINT and SIGTERM listened for from the start. A stop asked for while it starts aborts `stop`:
 * the start-up undoes what it started and throws, and this ends as a stop after start-up does.
 * Signals after the first leave the stop under way to finish.
 */
export async function untilStopped(serve: (stop: AbortSignal) => Promise<void>): Promise<void> {
  const controller = new AbortController();
  const abort = () => controller.abort(new Error('stopped by a signal'));
  process.on('SIGINT', abort);
  process.on('SIGTERM', abort);
  try {
    await serve(controller.signal);
  } catch (error) {
    if (error !== controller.signal.reason) throw error;
    console.log('Stopped.');
  } finally {
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
  }
}

/** Resolves once `stop` is aborted, or when the workers stop on their own. */
export function waitForStop(stop: AbortSignal, running: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    if (stop.aborted) return resolve();
    stop.addEventListener('abort', () => resolve(), { once: true });
    running.then(
      () => resolve(),
      () => resolve(),
    );
  });
}
