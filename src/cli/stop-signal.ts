// How the long-running commands (up, worker, codec-server) wait to be stopped.
/** Resolves on SIGINT or SIGTERM, or when the worker stops on its own. */
export function waitForStopSignal(running: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    running.then(done, done);
  });
}
