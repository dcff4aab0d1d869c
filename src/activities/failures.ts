// Which activity errors no retry of the activity can cure, and the node failure each one is.
// Everything else is transient and left to the workflow's bounded retry policy.
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { ZodError } from 'zod';
import { CanopyError } from '../domain/errors';
import type { FailureKind } from '../domain/node-run';
import { DISK_FULL_FIX } from '../graph/verdicts';
import { RunDirectoryError } from '../process/run-directory';
import { isConstraintViolation } from '../store/constraint-errors';

export interface DeterministicFailure {
  kind: FailureKind;
  reason: string;
}

const NO_SPACE = 'ENOSPC';

/** Errno and Node argument codes a spawn or a file access keeps returning however often it is tried. */
const LASTING_CODES = new Set([
  'E2BIG',
  'ENOENT',
  'ENOTDIR',
  'EISDIR',
  'EACCES',
  'EPERM',
  'ENAMETOOLONG',
  'ELOOP',
  'ENOEXEC',
  'ERR_INVALID_ARG_VALUE',
  'ERR_INVALID_ARG_TYPE',
]);

export function deterministicFailure(error: unknown): DeterministicFailure | null {
  if (error instanceof CancelledFailure) return null;
  if (error instanceof ApplicationFailure) return error.nonRetryable ? { kind: kindOf(error.type), reason: error.message } : null;
  if (error instanceof CanopyError) return { kind: 'invalid_config', reason: error.message };
  if (error instanceof ZodError) {
    const issues = error.issues.map((issue) => `${issue.path.map(String).join('.') || '(value)'}: ${issue.message}`);
    return { kind: 'invalid_config', reason: `Stored data does not fit its schema: ${issues.join('; ')}` };
  }
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  // A full disk stays full until a person frees space: running the node again would meet it as it is.
  if (code === NO_SPACE) return { kind: 'disk_full', reason: `${error.message}. ${DISK_FULL_FIX}` };
  // A disk that refuses now may take it later: an infrastructure failure, which the workflow runs
  // again after its backoff, where an immediate retry of the activity would meet the same disk.
  if (error instanceof RunDirectoryError) return { kind: 'infra_disk', reason: error.message };
  if (isConstraintViolation(error)) return { kind: 'store_constraint', reason: error.message };
  return typeof code === 'string' && LASTING_CODES.has(code) ? { kind: 'spawn_error', reason: error.message } : null;
}

/**
 * How a node's activity ends on `error`: a deterministic error, or a transient one on the last of
 * `maxAttempts`, fails the node; null leaves the error to Temporal's next retry (or its cancellation).
 */
export function nodeFailure(error: unknown, attempt: number, maxAttempts: number): DeterministicFailure | null {
  const failure = deterministicFailure(error);
  if (failure || error instanceof CancelledFailure || attempt < maxAttempts) return failure;
  return { kind: 'infra', reason: `Gave up after ${attempt} attempts: ${error instanceof Error ? error.message : String(error)}` };
}

/** Wraps an activity so a deterministic error reaches the workflow as a non-retryable failure saying why. */
export function nonRetryableWhenDeterministic<A extends unknown[], R>(name: string, activity: (...args: A) => Promise<R>) {
  return async (...args: A): Promise<R> => {
    try {
      return await activity(...args);
    } catch (error) {
      const failure = deterministicFailure(error);
      if (!failure || error instanceof ApplicationFailure) throw error;
      throw ApplicationFailure.create({
        message: `${name}: ${failure.reason}`,
        type: failure.kind,
        nonRetryable: true,
        cause: error as Error,
      });
    }
  };
}

/** The kinds a non-retryable failure's type names, as nonRetryableWhenDeterministic gives them. */
const DETERMINISTIC_KINDS: readonly FailureKind[] = ['invalid_config', 'spawn_error', 'store_constraint', 'infra_disk', 'disk_full'];

function kindOf(type: string | undefined | null): FailureKind {
  return DETERMINISTIC_KINDS.find((kind) => kind === type) ?? 'invalid_config';
}
