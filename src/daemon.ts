// The long-running side of canopy: a worker bound to the store, optionally beside an embedded Temporal server.
import type { Worker } from '@temporalio/worker';
import type { Kysely } from 'kysely';
import { createActivities } from './activities';
import type { CanopyConfig } from './config';
import { openDatabase, type Database } from './store/database';
import { seedBuiltinBlueprints } from './store/blueprints-repository';
import { ensureTemporal, type TemporalEndpoint } from './temporal/embedded';
import { ensureSearchAttributes } from './temporal/search-attributes';
import { connectWorker, createWorker } from './worker';

export interface Daemon {
  endpoint: TemporalEndpoint;
  worker: Worker;
  db: Kysely<Database>;
  /** Settles when the worker stops. */
  running: Promise<void>;
  /** Stops the worker, then the embedded server if this process started it. */
  stop(): Promise<void>;
}

export interface DaemonOptions {
  /** Start an embedded dev server when none answers (`canopy up`); a plain worker only connects. */
  embedded: boolean;
  mcpUrl: string | null;
  progress: (line: string) => void;
}

export async function startDaemon(config: CanopyConfig, options: DaemonOptions): Promise<Daemon> {
  const endpoint = options.embedded
    ? await ensureTemporal(config, options.progress)
    : { address: config.temporalAddress, server: null, description: `server at ${config.temporalAddress}` };
  const db = await openDatabase({ url: config.databaseUrl, home: config.home });
  await seedBuiltinBlueprints(db);
  const connection = await connectWorker(endpoint.address);
  await ensureSearchAttributes(connection, config.namespace);
  const activities = createActivities({ db, home: config.home, databaseUrl: config.databaseUrl, mcpUrl: options.mcpUrl, temporalAddress: endpoint.address });
  const worker = await createWorker({ connection, namespace: config.namespace, taskQueue: config.taskQueue, activities });
  const running = worker.run();
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      await connection.close();
      await db.destroy();
      await endpoint.server?.stop();
    })());
  return { endpoint, worker, db, running, stop };
}
