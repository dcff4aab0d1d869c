// The private run directories under <home>/runs on a disk that refuses changes (an immutable
// directory here): a directory that cannot be removed after its run ended changes nothing about
// the run and is removed when a worker starts; one that cannot be created is an infrastructure
// failure that says where and why.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { openContext } from '../../src/client/context';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { childEnv, tempHome, testConfig, useEngineHarness } from '../helpers/engine';
import { immutabilityUnavailable, whileImmutable } from '../helpers/immutable';
import { check, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';
import { spawnCanopy, waitForOutput } from '../helpers/processes';
import { waitUntil } from '../helpers/wait';

const SLOW = { timeout: 120_000 };

describe('run directories on a disk that refuses changes', () => {
  const unavailable = immutabilityUnavailable();
  const h = useEngineHarness();

  it(
    'keeps the outcome and output of a check whose run directory cannot be removed, and removes the directory when a worker starts',
    { ...SLOW, skip: unavailable },
    async () => {
      const home = tempHome();
      const config = testConfig(home);
      const ctx = await openContext(config);
      const workdir = scratchDir();
      const workers = [spawnCanopy(['worker'], childEnv(config))];
      try {
        await waitForOutput(workers[0], /Worker polling/);
        const loopId = await loopWithSpecs(
          ctx,
          workdir,
          { nodes: [check('held', 1, 'echo started; while [ ! -e release ]; do sleep 0.1; done; echo finished')] },
          [{ name: 'spec' }],
        );
        await startLoopRun(ctx, loopId);
        const started = await waitUntil('the check to start', async () => (await runsOf(ctx, loopId)).find((r) => r.pgid !== null));
        const runDir = path.join(home, 'runs', started.id);
        const result = await whileImmutable(path.join(home, 'runs'), () => {
          writeFileSync(path.join(workdir, 'release'), '');
          return waitForLoopRun(ctx, loopId);
        });

        assert.equal(result.status, 'completed', result.reason ?? '');
        const [run] = await runsOf(ctx, loopId);
        assert.deepEqual([run.status, run.failure_kind, run.exit_code, run.stdout], ['pass', null, 0, 'started\nfinished\n']);
        assert.ok(existsSync(runDir), 'the directory could not be removed');
        assert.match(workers[0].output(), new RegExp(`Could not remove the run directory ${runDir}: EPERM`));

        workers[0].child.kill('SIGKILL');
        await workers[0].exited;
        workers.push(spawnCanopy(['worker'], childEnv(config)));
        await waitUntil('the next worker to remove the directory', () => Promise.resolve(!existsSync(runDir)));
      } finally {
        for (const worker of workers) worker.child.kill('SIGKILL');
        await ctx.close();
      }
    },
  );

  it(
    'fails a node whose run directory cannot be created as an infrastructure failure naming the path and errno, retried, then failing the loop',
    { ...SLOW, skip: unavailable },
    async () => {
      const loopId = await loopWithSpecs(
        h.ctx,
        scratchDir(),
        { settings: { infra_retries: 1, infra_backoff_seconds: 1 }, nodes: [check('unhoused', 1, 'echo never')] },
        [{ name: 'spec' }],
      );
      const runs = path.join(h.config.home, 'runs');
      mkdirSync(runs, { recursive: true });
      const result = await whileImmutable(runs, () => h.withWorker(() => runToEnd(h.ctx, loopId)));

      assert.deepEqual([result.status, result.failingNode, result.failureKind], ['failed', 'unhoused', 'infra_disk']);
      const attempts = await runsOf(h.ctx, loopId);
      assert.deepEqual(
        attempts.map((r) => [r.status, r.failure_kind, r.infra_attempt]),
        [
          ['fail', 'infra_disk', 1],
          ['fail', 'infra_disk', 2],
        ],
      );
      for (const attempt of attempts) {
        assert.equal(
          attempt.reason,
          `Could not create the node run's directory ${path.join(runs, attempt.id)}: EPERM (operation not permitted)`,
        );
      }
    },
  );
});
