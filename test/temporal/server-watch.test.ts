// The test run's watch on its Temporal server: quiet while the server serves, and it says so once the
// server has stopped serving for the time allowed.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { it } from 'node:test';
import { startTestServer } from '../helpers/dev-server';
import { watchServer } from '../helpers/server-watch';

it(
  'stays quiet while the server serves, and reports it down once it has not served for the time allowed',
  { timeout: 60_000 },
  async () => {
    const server = await startTestServer();
    const reports: string[] = [];
    let reported: () => void = () => undefined;
    const down = new Promise<void>((resolve) => (reported = resolve));
    const watch = await watchServer(
      server.address,
      (why) => {
        reports.push(why);
        reported();
      },
      { everyMs: 1_000, downAfterMs: 3_000 },
    );
    try {
      await sleep(4_000);
      assert.deepEqual(reports, [], 'nothing is reported while the server serves');
      await server.stop();
      await down;
      await sleep(2_000);
      assert.equal(reports.length, 1, 'it is reported once');
      assert.match(reports[0], new RegExp(`^the Temporal server at ${server.address} has not served namespace 'default' for 3 s: `));
    } finally {
      await watch.stop();
      await server.stop();
    }
  },
);
