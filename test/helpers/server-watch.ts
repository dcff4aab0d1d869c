// Ends a test run whose Temporal server stopped serving, instead of letting every test left wait out
// its timeouts against it (a run of this suite then takes hours, and says nothing of why).
import { Connection } from '@temporalio/client';

/** How often the server is asked, and how long it may fail to answer before it is taken for down. */
export interface WatchTimes {
  everyMs: number;
  downAfterMs: number;
}

const RUN_TIMES: WatchTimes = { everyMs: 15_000, downAfterMs: 120_000 };

export interface ServerWatch {
  stop(): Promise<void>;
}

/** Asks the server at `address` for its `default` namespace until stopped; calls `onDown` once it has failed for `downAfterMs`. */
export async function watchServer(address: string, onDown: (why: string) => void, times = RUN_TIMES): Promise<ServerWatch> {
  const connection = await Connection.connect({ address });
  let failingSince: number | null = null;
  let inFlight: Promise<void> = Promise.resolve();
  const check = async () => {
    try {
      await connection.withDeadline(Date.now() + times.everyMs / 2, () =>
        connection.workflowService.describeNamespace({ namespace: 'default' }),
      );
      failingSince = null;
    } catch (error) {
      failingSince ??= Date.now();
      if (Date.now() - failingSince < times.downAfterMs) return;
      clearInterval(timer);
      onDown(
        `the Temporal server at ${address} has not served namespace 'default' for ${times.downAfterMs / 1000} s: ${(error as Error).message}`,
      );
    }
  };
  let checking = false;
  // One check at a time: the client's own retries can hold a call past the interval.
  const timer = setInterval(() => {
    if (checking) return;
    checking = true;
    inFlight = check().finally(() => (checking = false));
  }, times.everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
      await connection.close();
    },
  };
}
