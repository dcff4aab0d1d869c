// Infra retries: an agent or check that failed for infrastructure reasons runs again after a
// backoff timer, each attempt a new execution with its own node run.
import { sleep } from '@temporalio/workflow';
import { infraBackoffMs, isInfraFailure } from '../graph/infra-failures';
import type { NodeOutcome } from '../contract';

/**
 * Runs `attempt` (numbered from 1) until it ends other than in an infra failure or `retries` more
 * attempts ran, waiting `firstBackoffSeconds` (the default when absent), doubling, between them.
 */
export async function withInfraRetries(
  retries: number,
  firstBackoffSeconds: number | undefined,
  attempt: (number: number) => Promise<NodeOutcome>,
): Promise<NodeOutcome> {
  for (let number = 1; ; number++) {
    const outcome = await attempt(number);
    if (number > retries || !isInfraFailure(outcome.failureKind)) return outcome;
    await sleep(infraBackoffMs(number, firstBackoffSeconds));
  }
}
