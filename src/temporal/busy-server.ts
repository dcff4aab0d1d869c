// The calls a worker makes as it starts, given the time a busy server needs: a dev server on a
// loaded machine answers its health check at once but can take many seconds to read its store,
// and says so (UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED) instead of failing for good.

/** How long a starting worker waits for a server that says it is busy, beyond the SDK's own ~10 s of retries. */
export const BUSY_SERVER_WAIT_MS = 60_000;
const PAUSE_MS = 1_000;

/** gRPC codes a server answers with while it cannot serve yet, but will. */
const BUSY_CODES = new Set([4, 8, 14]);

export interface BusyServerWait {
  /** What the call does, as in "Temporal at … could not <what>". */
  what: string;
  address: string;
  progress: (line: string) => void;
  withinMs?: number;
  /** Ends the wait once aborted (a stop asked for while the worker starts). */
  stop?: AbortSignal;
}

/**
 * `call`'s answer, asking again every second while the server says it is busy, for `withinMs` at
 * most; any other failure is thrown at once. The first busy answer is reported through `progress`.
 */
export async function whileServerBusy<T>(call: () => Promise<T>, wait: BusyServerWait): Promise<T> {
  const withinMs = wait.withinMs ?? BUSY_SERVER_WAIT_MS;
  const deadline = Date.now() + withinMs;
  for (let reported = false; ; reported = true) {
    try {
      return await call();
    } catch (error) {
      if (!saysBusy(error)) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      if (Date.now() + PAUSE_MS > deadline)
        throw new Error(`Temporal at ${wait.address} could not ${wait.what} within ${withinMs / 1000} s: ${reason}`, { cause: error });
      if (!reported) wait.progress(`Temporal at ${wait.address} is busy (${reason}); asking again for up to ${withinMs / 1000} s…`);
    }
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    wait.stop?.throwIfAborted();
  }
}

function saysBusy(error: unknown): boolean {
  return BUSY_CODES.has(Number((error as { code?: unknown } | null)?.code));
}
