// What every service needs: the configuration, the store and (lazily) a Temporal client.
import { Client, Connection } from '@temporalio/client';
import type { Kysely } from 'kysely';
import { loadConfig, type CanopyConfig } from '../config';
import { openDatabase, type Database } from '../store/database';

export interface ClientContext {
  config: CanopyConfig;
  db: Kysely<Database>;
  /** Connects on first use, so commands that only touch the store never wait for Temporal. */
  temporal(): Promise<Client>;
  close(): Promise<void>;
}

export async function openContext(config: CanopyConfig = loadConfig()): Promise<ClientContext> {
  const db = await openDatabase({ url: config.databaseUrl, home: config.home });
  let connection: Promise<Connection> | undefined;
  const connect = () => (connection ??= Connection.connect({ address: config.temporalAddress, connectTimeout: 5_000 }));
  return {
    config,
    db,
    async temporal() {
      return new Client({ connection: await connect(), namespace: config.namespace });
    },
    async close() {
      if (connection) await (await connection).close().catch(() => undefined);
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
