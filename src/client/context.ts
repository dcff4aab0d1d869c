// What every service needs: the configuration, the store and (lazily) a Temporal client.
import type { Client, Connection } from '@temporalio/client';
import type { Kysely } from 'kysely';
import { loadConfig, type CanopyConfig } from '../config';
import { configFilePath } from '../agents/config-file';
import { ensurePrivateDirectory, narrowIfExists } from '../private-files';
import { openDatabase, type Database } from '../store/database';
import { canopyDataConverter } from '../temporal/codec/data-converter';
import { connectWithin } from '../temporal/connect';
import { temporalClientSdk } from '../temporal/sdk';
import { clientTracing, flushTracing } from '../telemetry/tracing';

export interface ClientContext {
  config: CanopyConfig;
  db: Kysely<Database>;
  /**
   * Connects on first use, so commands that only touch the store never load the SDK or wait for
   * Temporal; the first caller decides how long connecting may take, attempts and pauses included.
   */
  temporal(connectTimeoutMs?: number): Promise<Client>;
  close(): Promise<void>;
}

/** Whether what is recorded on `host` (a loop's workdir, a sandbox) is on this machine; null means any machine. */
export function onThisHost(ctx: ClientContext, host: string | null): boolean {
  return host === null || host === ctx.config.hostId;
}

/**
 * How long a command that needs Temporal (run, pause, autorun…) keeps trying to reach it: a server
 * that is up can miss an attempt's deadline on a machine busy starting a fleet of commands.
 */
const COMMAND_CONNECT_TIMEOUT_MS = 60_000;

/** How long a read waits for Temporal before it prints what the store knows and says the live state is unavailable. */
export const LIVE_STATE_CONNECT_TIMEOUT_MS = 1_000;

export async function openContext(config: CanopyConfig = loadConfig()): Promise<ClientContext> {
  ensurePrivateDirectory(config.home);
  // People write config.json with an editor under their own umask; it may hold API keys.
  narrowIfExists(configFilePath(config.home));
  const db = await openDatabase({ url: config.databaseUrl, home: config.home });
  let connection: Promise<Connection> | undefined;
  return {
    config,
    db,
    async temporal(connectTimeoutMs = COMMAND_CONNECT_TIMEOUT_MS) {
      const sdk = temporalClientSdk();
      // A failed connection is forgotten, so a long-lived process (the MCP server) connects again on the next call.
      connection ??= connectWithin(config.temporalAddress, connectTimeoutMs).catch((error: unknown) => {
        connection = undefined;
        throw error;
      });
      return new sdk.Client({
        connection: await connection,
        namespace: config.namespace,
        dataConverter: canopyDataConverter(config.payloadKeys),
        interceptors: clientTracing(),
      });
    },
    async close() {
      // A process that traces (a command, a worker) closes its context last: the spans still batched leave now.
      await flushTracing();
      await connection?.then((open) => open.close()).catch(() => undefined);
      await db.destroy();
    },
  };
}

/** Runs `work` with a context and always closes it. */
export async function withContext<T>(work: (ctx: ClientContext) => Promise<T>, config?: CanopyConfig): Promise<T> {
  const ctx = await openContext(config);
  try {
    return await work(ctx);
  } finally {
    await ctx.close();
  }
}
