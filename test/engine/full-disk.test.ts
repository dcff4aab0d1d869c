// A check whose output fills the disk canopy's home is on (a 30 MB tmpfs): it fails once, as
// disk_full naming ENOSPC and where, the store keeps a bounded copy of what it printed, and once a
// little space is free again `loop continue` runs the (fixed) check without handing it the failed
// attempt's output as a file it never reads.
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { updateNode } from '../../src/client/graph-service';
import { continueLoop, waitForLoopRun } from '../../src/client/runs-service';
import { KEPT_OUTPUT_BYTES } from '../../src/process/supervision/records';
import { getNodeByName } from '../../src/store/graph-repository';
import { engineHarness } from '../helpers/engine';
import { check, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';
import { leaveFree, onTmpfs, tmpfsUnavailable } from '../helpers/tmpfs';

const MiB = 1024 * 1024;

/** The SQLite store's files in `home`, in bytes: the database and its write-ahead log. */
function storeBytes(home: string): number {
  return ['canopy.db', 'canopy.db-wal', 'canopy.db-shm']
    .map((name) => path.join(home, name))
    .filter((file) => existsSync(file))
    .reduce((sum, file) => sum + statSync(file).size, 0);
}

describe('a full disk', () => {
  it(
    'fails a check whose output fills it once, as disk_full naming ENOSPC and where, keeps a bounded copy of the output, and continues once a little space is free',
    { timeout: 180_000, skip: tmpfsUnavailable() },
    () =>
      onTmpfs('30m', async (home) => {
        const h = await engineHarness({ CANOPY_HOME: home });
        try {
          // It floods once the worker has it on record, which the worker could not write on the full disk.
          const flood = `until ls ${path.join(home, 'runs')}/*/process.json; do sleep 0.01; done >/dev/null 2>&1; yes | head -c 50000000`;
          const loopId = await loopWithSpecs(
            h.ctx,
            scratchDir(),
            { settings: { infra_retries: 2, infra_backoff_seconds: 1 }, nodes: [check('flood', 1, flood)] },
            [{ name: 'spec' }],
          );
          const before = storeBytes(home);
          const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
          const after = storeBytes(home);
          console.log(`# store (canopy.db with its WAL): ${before} bytes before the run, ${after} after it (+${after - before})`);

          const runs = await runsOf(h.ctx, loopId);
          assert.deepEqual(
            runs.map((run) => [run.node_name, run.failure_kind]),
            [['flood', 'disk_full']],
            'one run, not retried as infrastructure',
          );
          assert.deepEqual([result.status, result.failingNode, result.failureKind], ['failed', 'flood', 'disk_full']);
          const [run] = runs;
          assert.match(run.reason ?? '', /ENOSPC/);
          assert.ok(run.reason?.includes(path.join(home, 'runs', run.id)), `the reason names the run directory: ${run.reason}`);
          assert.match(run.stdout, /\n\[canopy: \d+ bytes of \d+ cut here\]\n/);
          assert.ok(Buffer.byteLength(run.stdout) < KEPT_OUTPUT_BYTES + 100, `the store keeps ${Buffer.byteLength(run.stdout)} bytes`);
          assert.ok(after - before < 2 * MiB, `the store grew by ${after - before} bytes`);

          // The person makes the check print less and frees a little space, less than the failed attempt's stored output.
          const node = (await getNodeByName(h.ctx.db, loopId, 'flood'))!;
          const command = `ls -R ${path.join(home, 'runs')}; echo fixed`;
          await updateNode(h.ctx, { node_id: node.id, config: { command, timeout_minutes: 1 } });
          leaveFree(home, KEPT_OUTPUT_BYTES / 2);
          const continued = await h.withWorker(async () => {
            await continueLoop(h.ctx, loopId, 'retry');
            return waitForLoopRun(h.ctx, loopId);
          });
          assert.equal(continued.status, 'completed', continued.reason ?? '');
          const retried = (await runsOf(h.ctx, loopId)).at(-1)!;
          assert.match(retried.stdout, /\nstdout\n[^]*fixed\n$/, 'the check listed its own run directory');
          assert.doesNotMatch(retried.stdout, /previous_output\.txt/, 'a check that never reads the upstream output gets no file of it');
        } finally {
          await h.close();
        }
      }),
  );
});
