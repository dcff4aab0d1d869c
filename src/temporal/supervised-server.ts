// The embedded dev server under `canopy up`: restarted on the same database file when it dies,
// its pid kept in <home>/temporal.pid so a `canopy up` after a crash recognises and adopts it.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isGroupAlive, killProcessGroup } from '../process/process-group';
import { commandLine } from '../process/process-identity';
import type { DevServer } from './dev-server';

const WATCH_INTERVAL_MS = 1_000;

export interface ServerRecord {
  pidFile: string;
  /** The database file whose server this is: an adopted process must be serving it. */
  dbFile: string;
}

/**
 * The dev server an earlier `canopy up` started and left running (it crashed or was killed),
 * or null when the pid file names nothing alive that serves this home's database.
 */
export function orphanedServer(record: ServerRecord, address: string): DevServer | null {
  if (!existsSync(record.pidFile)) return null;
  const pid = Number(readFileSync(record.pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0 || !servesDatabase(pid, record.dbFile)) return null;
  // It was started detached, so its process group is its pid.
  return { address, pid, stop: () => killProcessGroup(pid) };
}

/** Watches `first`, restarting it with `start` whenever it dies, until stop() stops the current one. */
export function superviseServer(
  first: DevServer,
  start: () => Promise<DevServer>,
  record: ServerRecord,
  progress: (line: string) => void,
): DevServer {
  let current = first;
  let stopping = false;
  let restarting: Promise<void> | null = null;
  writeFileSync(record.pidFile, String(current.pid), { mode: 0o600 });
  const restart = async () => {
    progress(`Temporal dev server (pid ${current.pid}) died; restarting it on ${record.dbFile}…`);
    try {
      current = await start();
      writeFileSync(record.pidFile, String(current.pid), { mode: 0o600 });
      progress(`Temporal dev server restarted (pid ${current.pid}).`);
    } catch (error) {
      progress(`Temporal dev server did not restart (${error instanceof Error ? error.message : String(error)}); trying again.`);
    }
  };
  const watch = setInterval(() => {
    if (stopping || restarting || isGroupAlive(current.pid)) return;
    restarting = restart().finally(() => (restarting = null));
  }, WATCH_INTERVAL_MS);
  watch.unref();
  return {
    address: first.address,
    get pid() {
      return current.pid;
    },
    async stop() {
      stopping = true;
      clearInterval(watch);
      await restarting;
      await current.stop();
      rmSync(record.pidFile, { force: true });
    },
  };
}

/** Whether `pid` is a live `temporal server start-dev` keeping its data in `dbFile`. */
function servesDatabase(pid: number, dbFile: string): boolean {
  const argv = commandLine(pid);
  return argv !== null && argv.includes('start-dev') && argv.includes(dbFile);
}
