// Reaching a Temporal server from a command: patient with a server that is up but slow to answer,
// as on a machine busy starting a fleet of commands, and quick to give up when nothing listens.
import type { Connection, GrpcRetryOptions } from '@temporalio/client';
import { acceptsConnections } from './free-port';
import { temporalClientSdk } from './sdk';

/** How long the first attempt may take; each later one may take twice as long as the one before. */
const FIRST_ATTEMPT_MS = 5_000;
const PAUSE_MS = { first: 250, longest: 2_000 };

/**
 * Connects to Temporal at `address` within `withinMs`, attempts and pauses included. A bound under
 * the first attempt's (a read's) makes a single attempt. After a failed attempt it tries again
 * only while something accepts connections at the address: a server too busy to answer still
 * does, while a stopped one refuses at once, so its error comes as soon as the first attempt ends.
 */
export async function connectWithin(address: string, withinMs: number): Promise<Connection> {
  const sdk = temporalClientSdk();
  const { Connection } = sdk;
  const deadline = Date.now() + withinMs;
  for (let attemptMs = FIRST_ATTEMPT_MS, pause = PAUSE_MS.first; ; attemptMs *= 2, pause = Math.min(pause * 2, PAUSE_MS.longest)) {
    const connection = Connection.lazy({
      address,
      connectTimeout: Math.min(attemptMs, deadline - Date.now()),
      interceptors: [sdk.makeGrpcRetryInterceptor(callRetries(sdk.defaultGrpcRetryOptions()))],
    });
    try {
      await connection.ensureConnected();
      return connection;
    } catch (error) {
      // A failed attempt's channel would otherwise keep the process alive after the command ends.
      await connection.close().catch(() => undefined);
      // Another attempt needs some time left to be answered in, after the pause.
      if (deadline - Date.now() < pause + PAUSE_MS.first || !(await listensAt(address))) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/** Whether something accepts connections at `address` (host:port). */
function listensAt(address: string): Promise<boolean> {
  const separator = address.lastIndexOf(':');
  const port = Number(address.slice(separator + 1));
  // An address without a port leaves it to the SDK's default: assume a server may be there.
  if (separator < 0 || !Number.isInteger(port)) return Promise.resolve(true);
  return acceptsConnections(address.slice(0, separator).replace(/^\[(.*)\]$/, '$1'), port, FIRST_ATTEMPT_MS);
}

/** How many times a call is made at most when the server says the namespace is missing. */
const NAMESPACE_MISS_ATTEMPTS = 5;
const NAMESPACE_MISS_FIRST_PAUSE_MS = 500;

/**
 * The SDK's retries, and a few more for a namespace reported missing: the server reports any
 * failure to read a namespace it has not cached (a store too busy to answer within its 3 s) as
 * "Namespace … is not found", so a namespace that exists can be refused under load. One that is
 * really missing is still refused, about 9 s later.
 */
function callRetries(sdkDefaults: GrpcRetryOptions): GrpcRetryOptions {
  return {
    delayFunction: (attempt, status) =>
      namespaceMissing(status) ? NAMESPACE_MISS_FIRST_PAUSE_MS * 1.7 ** (attempt - 1) : sdkDefaults.delayFunction(attempt, status),
    retryableDecider: (attempt, status) =>
      namespaceMissing(status) ? attempt < NAMESPACE_MISS_ATTEMPTS : sdkDefaults.retryableDecider(attempt, status),
  };
}

/** gRPC's NOT_FOUND (the SDK does not export grpc-js's status enum). */
const NOT_FOUND: number = 5;

function namespaceMissing(status: Parameters<GrpcRetryOptions['retryableDecider']>[1]): boolean {
  return Number(status.code) === NOT_FOUND && /^Namespace \S+ is not found\.?$/.test(status.details);
}
