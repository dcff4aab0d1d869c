// Infrastructure failures: an agent or check that could not do its work for reasons outside the
// work. They are retried with a backoff, then take the node's error edge, never its fail edge.
import { DEFAULT_INFRA_BACKOFF_SECONDS, MAX_INFRA_BACKOFF_SECONDS } from '../domain/infra-backoff';
import type { FailureKind } from '../domain/node-run';

/** The condition of the edge such a node takes once its infra retries ran out. */
export const ERROR_CONDITION = 'error';

/** How long a crash may take to count as one: a CLI that dies this early did no work. */
export const EARLY_CRASH_MS = 60_000;

/** Each `infra_*` kind names a failure outside the work (plain `infra`, an activity that gave up, is not one). */
export function isInfraFailure(kind: FailureKind | null): boolean {
  return kind?.startsWith('infra_') ?? false;
}

/** The wait before infra retry `retry` (1 for the first): `firstSeconds`, doubling, at most a minute. */
export function infraBackoffMs(retry: number, firstSeconds = DEFAULT_INFRA_BACKOFF_SECONDS): number {
  return Math.min(firstSeconds * 2 ** (retry - 1), MAX_INFRA_BACKOFF_SECONDS) * 1000;
}
