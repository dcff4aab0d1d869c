// An activity Temporal watches by its heartbeats beats for as long as it runs, not only while a
// process of its runs: the work around that process (reading a 10 MB upstream output, recording
// it) would otherwise be silent, and under load outlast a short heartbeat timeout.
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
