// POSTing a message to a receiver, bounded in time; what went wrong said without the receiver's URL.
import type { Post } from './channels/post';

export interface DeliveryFailure {
  error: string;
  /** False when the receiver refused the message itself: asking again would get the same answer. */
  retryable: boolean;
}

/** Statuses that say "not now" rather than "not this". */
const TRANSIENT_STATUSES = new Set([408, 425, 429]);

export async function postTo(url: string, post: Post, timeoutSeconds: number): Promise<DeliveryFailure | null> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: post.headers,
      body: post.body,
      signal: AbortSignal.timeout(timeoutSeconds * 1000),
    });
  } catch (error) {
    return { error: requestError(error, timeoutSeconds), retryable: true };
  }
  await response.body?.cancel().catch(() => undefined);
  if (response.ok) return null;
  const answered = `the receiver answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  return { error: answered, retryable: response.status >= 500 || TRANSIENT_STATUSES.has(response.status) };
}

function requestError(error: unknown, timeoutSeconds: number): string {
  const failure = error as Error & { cause?: { code?: string; message?: string } };
  if (failure.name === 'TimeoutError') return `the receiver did not answer within ${timeoutSeconds} s`;
  const cause = failure.cause?.code ?? failure.cause?.message;
  return `the request failed: ${cause ?? failure.message}`;
}
