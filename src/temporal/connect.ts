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
      interceptors: [sdk.makeGrpcRetryInterceptor(callRetries(sdk.defaultGrpcRetryOptions(), namespaceInStore(address)))],
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

/** How many times a call is made at most when the server says a namespace is missing, and when the namespace is there. */
const NAMESPACE_MISS_ATTEMPTS = { unconfirmed: 5, confirmed: 16 };
const NAMESPACE_MISS_PAUSE_MS = { first: 500, longest: 5_000 };

/** Whether `namespace` exists, asked of the server's store rather than of its cache of namespaces. */
export type NamespaceLookUp = (namespace: string) => Promise<boolean>;

/**
 * The SDK's retries, and more for a namespace reported missing. A server reports any failure to
 * read a namespace it has not cached (a store too busy to answer within its 3 s) as "Namespace … is
 * not found", so under load a namespace that exists can be refused for many seconds. At the first
 * such answer the store is asked whether the namespace exists: a call naming one that does is made
 * again for about a minute, one naming a namespace the store has not confirmed for about 5 s.
 */
export function callRetries(sdkDefaults: GrpcRetryOptions, lookUp: NamespaceLookUp): GrpcRetryOptions {
  const asked = new Set<string>();
  const existing = new Set<string>();
  const confirm = (namespace: string) => {
    if (asked.has(namespace)) return;
    asked.add(namespace);
    lookUp(namespace).then(
      (exists) => exists && existing.add(namespace),
      // Asked again at the next miss.
      () => asked.delete(namespace),
    );
  };
  return {
    delayFunction: (attempt, status) =>
      missingNamespace(status) === null
        ? sdkDefaults.delayFunction(attempt, status)
        : Math.min(NAMESPACE_MISS_PAUSE_MS.first * 1.7 ** (attempt - 1), NAMESPACE_MISS_PAUSE_MS.longest),
    retryableDecider: (attempt, status) => {
      const namespace = missingNamespace(status);
      if (namespace === null) return sdkDefaults.retryableDecider(attempt, status);
      confirm(namespace);
      return attempt < NAMESPACE_MISS_ATTEMPTS[existing.has(namespace) ? 'confirmed' : 'unconfirmed'];
    },
  };
}

/** gRPC's NOT_FOUND (the SDK does not export grpc-js's status enum). */
const NOT_FOUND: number = 5;

/** The namespace a "Namespace … is not found" answer names, or null for any other answer. */
function missingNamespace(status: { code: unknown; details: string }): string | null {
  if (Number(status.code) !== NOT_FOUND) return null;
  return /^Namespace (\S+) is not found\.?$/.exec(status.details)?.[1] ?? null;
}

/** Asks the store behind `address` (DescribeNamespace reads it directly) whether `namespace` exists. */
export function namespaceInStore(address: string): NamespaceLookUp {
  return async (namespace) => {
    const connection = temporalClientSdk().Connection.lazy({ address, connectTimeout: FIRST_ATTEMPT_MS });
    try {
      await connection.workflowService.describeNamespace({ namespace });
      return true;
    } catch (error) {
      if (Number((error as { code?: unknown }).code) === NOT_FOUND) return false;
      throw error;
    } finally {
      await connection.close();
    }
  };
}
