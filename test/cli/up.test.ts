// `canopy up` starts an embedded Temporal server and a worker, and Ctrl-C leaves nothing behind.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { it } from 'node:test';
import { tempHome } from '../helpers/engine';
import { freePort } from '../../src/temporal/free-port';
import { spawnCanopy, waitForOutput } from '../helpers/processes';

/** Processes whose command line mentions `text` (the canopy home is in the dev server's --db-filename). */
function processesMentioning(text: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

it('canopy up runs Temporal and a worker, and SIGINT stops both', async () => {
  const home = tempHome();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CANOPY_HOME: home,
    CANOPY_TEMPORAL_PORT: String(await freePort()),
    CANOPY_UI_PORT: String(await freePort()),
    CANOPY_MCP_PORT: String(await freePort()),
  };
  delete env.TEMPORAL_ADDRESS;
  const up = spawnCanopy(['up'], env);
  await waitForOutput(up, /canopy is up/);
  const serverPid = Number(/pid (\d+)/.exec(up.output())![1]);
  assert.ok(processesMentioning(home).includes(serverPid), 'the dev server keeps its data in the canopy home');

  up.child.kill('SIGINT');
  assert.equal(await up.exited, 0, up.output());
  assert.match(up.output(), /Stopped\./);
  assert.deepEqual(processesMentioning(home), [], 'no temporal or worker process is left');
});
