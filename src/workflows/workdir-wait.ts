// A scheduled or autorun start waits, durably, while another loop's open run holds its loop's workdir.
import { sleep, upsertMemo } from '@temporalio/workflow';
import type { WorkdirWait } from '../contract';

/** The first wait before trying the start again; each wait after is twice the one before, up to the longest. */
export const FIRST_WORKDIR_WAIT_SECONDS = 5;
export const LONGEST_WORKDIR_WAIT_SECONDS = 300;

/**
 * Tries `start` until it does not find the workdir busy, waiting on a timer between tries, so the
 * wait outlives any worker; while it waits, the memo says what holds the workdir (`loop info` reads it).
 */
export async function untilWorkdirFree<T>(start: () => Promise<T | WorkdirWait>): Promise<T> {
  let waitSeconds = FIRST_WORKDIR_WAIT_SECONDS;
  for (;;) {
    const started = await start();
    if (!isWorkdirWait(started)) return started;
    upsertMemo({ outcome: started.outcome, detail: started.detail });
    await sleep(waitSeconds * 1000);
    waitSeconds = Math.min(waitSeconds * 2, LONGEST_WORKDIR_WAIT_SECONDS);
  }
}

function isWorkdirWait(value: unknown): value is WorkdirWait {
  return typeof value === 'object' && value !== null && (value as { outcome?: unknown }).outcome === 'waiting';
}
