// Activities that have a heartbeat timeout beat for as long as they run, not only while a process
// of theirs runs: the work around that process (waiting for a workdir's scan, reading and recording
// a 10 MB output) would otherwise be silent, and under load outlast a short heartbeat timeout.
import { Context } from '@temporalio/activity';

/** Beats per heartbeat timeout; the SDK sends at most one per 80% of the timeout, the rest it merges. */
const BEATS_PER_TIMEOUT = 4;

export function heartbeatingThroughout<A extends unknown[], R>(activity: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    const context = Context.current();
    const { isLocal, heartbeatTimeoutMs } = context.info;
    if (isLocal || !heartbeatTimeoutMs) return activity(...args);
    const beat = setInterval(() => context.heartbeat(), heartbeatTimeoutMs / BEATS_PER_TIMEOUT);
    try {
      return await activity(...args);
    } finally {
      clearInterval(beat);
    }
  };
}
