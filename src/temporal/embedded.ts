// Makes sure a Temporal server answers: the one TEMPORAL_ADDRESS names, one already running, or a new embedded dev server.
import path from 'node:path';
import type { CanopyConfig } from '../config';
import { missingBinaryMessage, resolveTemporalBinary } from './binary';
import { DATABASE_PRAGMAS, isTemporalReachable, startDevServer, waitForTemporal, type DevServer } from './dev-server';
import { orphanedServer, superviseServer } from './supervised-server';

export interface TemporalEndpoint {
  address: string;
  /** The dev server this process started and must stop, or null when it uses someone else's. */
  server: DevServer | null;
  description: string;
}

/**
 * `uiCodecEndpoint` is given to a dev server this starts, so its Web UI shows encrypted payloads decoded;
 * a `stop` while it waits for a server to answer ends the wait (and the server it was starting).
 */
export async function ensureTemporal(
  config: CanopyConfig,
  progress: (line: string) => void,
  uiCodecEndpoint?: string,
  stop?: AbortSignal,
): Promise<TemporalEndpoint> {
  const address = config.temporalAddress;
  if (config.externalTemporal) {
    progress(`Waiting for Temporal at ${address} (TEMPORAL_ADDRESS)…`);
    await waitForTemporal(address, 60_000, stop);
    return { address, server: null, description: `external server at ${address}` };
  }
  const dbFile = path.join(config.home, 'temporal.db');
  const record = { pidFile: path.join(config.home, 'temporal.pid'), dbFile };
  const start = () => {
    const binary = resolveTemporalBinary();
    if (!binary) throw new Error(missingBinaryMessage());
    progress(`Starting Temporal dev server (${binary.path})…`);
    const options = {
      binary: binary.path,
      address,
      uiPort: config.uiPort,
      dbFile,
      sqlitePragmas: DATABASE_PRAGMAS,
      logFile: path.join(config.home, 'temporal.log'),
      uiCodecEndpoint,
    };
    return startDevServer(options, undefined, stop);
  };
  if (await isTemporalReachable(address)) {
    const orphan = orphanedServer(record, address);
    if (!orphan) return { address, server: null, description: `already running at ${address} (reused)` };
    return {
      address,
      server: superviseServer(orphan, start, record, progress),
      description: `adopted the dev server (pid ${orphan.pid}) an earlier canopy up left at ${address}, data in ${dbFile}`,
    };
  }
  const server = await start();
  return {
    address,
    server: superviseServer(server, start, record, progress),
    description: `embedded dev server (pid ${server.pid}) at ${address}, data in ${dbFile}`,
  };
}
