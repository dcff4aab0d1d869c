// A headless Temporal dev server in a scratch directory, for a whole test run or a history recording.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { missingBinaryMessage, resolveTemporalBinary } from '../../src/temporal/binary';
import { SCRATCH_DATABASE_PRAGMAS, startDevServer } from '../../src/temporal/dev-server';
import { freePort } from '../../src/temporal/free-port';

/** Dynamic config that has the server suggest continue-as-new after 15 events (a spec of one node), as a long run would see it. */
export const SUGGEST_CONTINUE_AS_NEW_EARLY = 'limit.historyCount.suggestContinueAsNew=15';

export interface TestServer {
  address: string;
  binary: string;
  readyMs: number;
  pid: number;
  /** Where the server writes its warnings and errors. */
  logFile: string;
  stop(): Promise<void>;
}

export async function startTestServer(dynamicConfig: string[] = []): Promise<TestServer> {
  const binary = resolveTemporalBinary();
  if (!binary) throw new Error(missingBinaryMessage());
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'canopy-test-server-'));
  const address = `127.0.0.1:${await freePort()}`;
  const started = Date.now();
  const logFile = path.join(scratch, 'temporal.log');
  const server = await startDevServer({
    binary: binary.path,
    address,
    uiPort: null,
    logFile,
    dbFile: path.join(scratch, 'temporal.db'),
    sqlitePragmas: SCRATCH_DATABASE_PRAGMAS,
    dynamicConfig,
  });
  return {
    address,
    binary: binary.path,
    readyMs: Date.now() - started,
    pid: server.pid,
    logFile,
    async stop() {
      await server.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
