// `canopy up` as a test starts it: a home of its own, free ports, no outside Temporal; and the processes
// that mention a home (the dev server keeps its data there).
import { readFileSync } from 'node:fs';
import { freePort } from '../../src/temporal/free-port';
import { tempHome } from './engine';
import { livePidsWhere } from './running-processes';

/** The environment of a `canopy up` with its own home and free ports. */
export async function upEnv(): Promise<{ home: string; env: NodeJS.ProcessEnv }> {
  const home = tempHome();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CANOPY_HOME: home,
    CANOPY_TEMPORAL_PORT: String(await freePort()),
    CANOPY_UI_PORT: String(await freePort()),
    CANOPY_MCP_PORT: String(await freePort()),
  };
  delete env.TEMPORAL_ADDRESS;
  return { home, env };
}

/** Processes whose command line mentions `text` (the canopy home is in the dev server's --db-filename). */
export function processesMentioning(text: string): number[] {
  return livePidsWhere((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text));
}
