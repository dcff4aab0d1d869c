// The waits between a node's infra retries, apart from the loop schema so that workflow code reads them without zod.

/** The loop's infra_backoff_seconds when it sets none: the wait before the first infra retry. */
export const DEFAULT_INFRA_BACKOFF_SECONDS = 5;
/** No wait between infra retries is longer than this, and so neither is the first. */
export const MAX_INFRA_BACKOFF_SECONDS = 60;
