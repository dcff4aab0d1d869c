// Failures no retry can cure end the loop at once with the reason; transient ones are retried a
// bounded number of times. Either way the run ends failed and `loop info` says why.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/activity';
import { loopStatus } from '../../src/client/loop-status-service';
import { getNodeByName, updateNode } from '../../src/store/graph-repository';
import { updateLoop } from '../../src/store/loops-repository';
import { insertNodeRun } from '../../src/store/node-runs-repository';
import { listSpecs, updateSpec } from '../../src/store/specs-repository';
import { engineHarness, useEngineHarness } from '../helpers/engine';
import { agent, check, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';

const QUICK = { timeout: 60_000 };

describe('failures that no retry can cure', () => {
  const h = useEngineHarness();

  /** Runs the loop and checks it failed once, at `node`, with `kind`, as loop info reports too. */
  async function assertFailsOnce(loopId: string, node: string, kind: string, reason: RegExp) {
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'failed');
    assert.equal(result.failingNode, node);
    assert.equal(result.failureKind, kind);
    assert.match(result.reason ?? '', reason);
    const info = await loopStatus(h.ctx, loopId);
    assert.equal(info.status, 'failed');
    assert.match(info.last_run?.reason ?? '', reason);
    const runs = (await runsOf(h.ctx, loopId)).filter((r) => r.node_name === node);
    assert.deepEqual(
      runs.map((r) => [r.status, r.failure_kind, r.infra_attempt]),
      [['fail', kind, 1]],
      'failed on the first attempt, never retried',
    );
  }

  it('fails a check whose stored command holds a NUL byte, naming the field', QUICK, async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('nul', 1, 'echo fine')] }, [{ name: 'spec' }]);
    const node = (await getNodeByName(h.ctx.db, loopId, 'nul'))!;
    await updateNode(h.ctx.db, node.id, { config: { command: 'echo a\u0000b', timeout_minutes: 1 } });
    await assertFailsOnce(loopId, 'nul', 'invalid_config', /command: must not contain NUL bytes/);
  });

  it('fails an agent whose spec content holds a NUL byte', QUICK, async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [agent('writer', 1, 'do {{spec_content}}')] }, [{ name: 'spec' }]);
    const [spec] = await listSpecs(h.ctx.db, { loopId });
    await updateSpec(h.ctx.db, spec.id, { content: 'a\u0000b' });
    await assertFailsOnce(loopId, 'writer', 'spawn_error', /null bytes/);
  });

  it('fails the run at once when the workdir is a regular file, naming the workdir, and leaves the spec unclaimed', QUICK, async () => {
    const file = path.join(scratchDir(), 'not-a-dir');
    writeFileSync(file, '');
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('any', 1, 'true')] }, [{ name: 'spec' }]);
    await updateLoop(h.ctx.db, loopId, { workdir: file });
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'failed');
    assert.match(result.reason ?? '', new RegExp(`workdir: ${file} is not a directory`));
    assert.match((await loopStatus(h.ctx, loopId)).last_run?.reason ?? '', /is not a directory/);
    // The workdir failed the spec's opening, before its claim was written: the spec is not charged an attempt.
    const [spec] = await listSpecs(h.ctx.db, { loopId });
    assert.deepEqual([spec.status, spec.failure_count], ['pending', 0]);
  });

  it('fails an agent node once, naming the file and field, when config.json breaks mid-run', QUICK, async () => {
    const config = path.join(h.config.home, 'config.json');
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        nodes: [check('breaker', 1, `echo '{"platforms": {"fake": {"argv": []}}}' > ${config}`), agent('writer', 2, '@print hi')],
        edges: [{ source: 'breaker', target: 'writer' }],
        // The check plays the person who edits config.json: a confined one cannot reach canopy's home.
        settings: { confine: false },
      },
      [{ name: 'spec' }],
    );
    const intact = readFileSync(config, 'utf8');
    try {
      await assertFailsOnce(loopId, 'writer', 'invalid_config', /config\.json is invalid[\s\S]*platforms\.fake\.argv/);
    } finally {
      writeFileSync(config, intact);
    }
  });

  it('judges a catastrophic gate pattern in linear time', QUICK, async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        nodes: [
          check('emit', 1, `printf '${'a'.repeat(29)}b'`),
          { name: 'gate', kind: 'gate', position: 2, config: { output_matches: '^(a+)+$' } },
        ],
        edges: [{ source: 'emit', target: 'gate' }],
      },
      [{ name: 'spec' }],
    );
    const started = Date.now();
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.failureKind, 'gate');
    assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
  });
});

describe('transient failures', () => {
  it('retries a node activity a bounded number of times, then fails the loop with the reason', QUICK, async () => {
    let attempts = 0;
    const h = await engineHarness(
      {},
      {
        runNode: async (input) => {
          attempts += 1;
          // Each attempt opens the node's record and dies before closing it, as a worker killed mid-node would.
          await insertNodeRun(h.ctx.db, {
            loop_id: input.loopId,
            node_name: input.nodeName,
            kind: 'check',
            round: 1,
            run_key: `${input.runKey}:${attempts}`,
          });
          throw new Error('the store went away');
        },
      },
    );
    try {
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('any', 1, 'true')] }, [{ name: 'spec' }]);
      const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
      assert.equal(result.status, 'failed');
      assert.match(result.reason ?? '', /the store went away/);
      assert.equal(attempts, 5);
      const runs = await runsOf(h.ctx, loopId);
      assert.equal(runs.length, 5);
      for (const run of runs) {
        assert.deepEqual([run.status, run.failure_kind], ['fail', 'infra']);
        assert.match(run.reason ?? '', /^Abandoned when the run failed: .*the store went away/);
      }
      assert.match((await loopStatus(h.ctx, loopId)).last_run?.reason ?? '', /the store went away/);
    } finally {
      await h.close();
    }
  });

  it('shows a run that failed where no node can be blamed as failed, with the reason, in loop info', QUICK, async () => {
    const h = await engineHarness(
      {},
      {
        finishSpec: () => Promise.reject(ApplicationFailure.nonRetryable('the specs table is corrupt', 'store_constraint')),
      },
    );
    try {
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('any', 1, 'true')] }, [{ name: 'spec' }]);
      const waited = await h.withWorker(() =>
        runToEnd(h.ctx, loopId).then(
          () => 'completed',
          (error: Error) => error.name,
        ),
      );
      assert.equal(waited, 'WorkflowFailedError', 'loop run --wait returns');
      const info = await loopStatus(h.ctx, loopId);
      assert.deepEqual([info.status, info.last_run?.failure_kind], ['failed', 'workflow_closed']);
      assert.match(info.last_run?.reason ?? '', /^The workflow loop-\S+ failed: the specs table is corrupt\.$/);
    } finally {
      await h.close();
    }
  });
});
