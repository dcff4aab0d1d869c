// What an agent or check left uncommitted is read after its activity has answered, off the path to
// the next node: `git status` is a process start, about a quarter of a step's time. Whatever changes
// a loop's workdirs next, or reads those records, waits for the loop's scans first.

/** Past this, a scan that has not ended (git hung on a network file system) is waited for no longer. */
export const SCAN_WAIT_MS = 60_000;

export interface WorkdirScans {
  /** Runs `scan` for the loop once the scans already started for it have ended. */
  start(loopId: string, scan: () => Promise<void>): void;
  /** Settles once every scan started for the loop has ended, or after `SCAN_WAIT_MS`. */
  settled(loopId: string): Promise<void>;
  /** Settles once every scan started in this process has ended, or after `SCAN_WAIT_MS` (a worker stopping). */
  drained(): Promise<void>;
}

/** The scans of one worker process; `warn` hears of a scan that failed (its record keeps no dirty paths). */
export function workdirScans(warn: (message: string) => void): WorkdirScans {
  const pending = new Map<string, Promise<void>>();

  function start(loopId: string, scan: () => Promise<void>): void {
    const chained = (pending.get(loopId) ?? Promise.resolve()).then(scan).catch((error: unknown) => {
      warn(`canopy: the uncommitted paths after a node of loop ${loopId} were not recorded: ${String(error)}`);
    });
    pending.set(loopId, chained);
    void chained.then(() => {
      if (pending.get(loopId) === chained) pending.delete(loopId);
    });
  }

  return {
    start,
    settled: (loopId) => withinWait(pending.get(loopId)),
    drained: () => withinWait(pending.size ? Promise.all(pending.values()).then(() => undefined) : undefined),
  };
}

function withinWait(scans: Promise<void> | undefined): Promise<void> {
  if (!scans) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, SCAN_WAIT_MS);
    timer.unref();
    void scans.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
