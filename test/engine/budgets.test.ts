// Budgets: a run whose agents spent its budget_usd or budget_tokens blocks before its next node with
// budget_exhausted, keeping what it did; a continue goes on only once the budget was raised.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { updateLoop } from '../../src/client/loops-service';
import { resetLoop } from '../../src/client/reset-service';
import { createSpec, updateSpec } from '../../src/client/specs-service';
import { loopStatus } from '../../src/client/loop-status-service';
import { continueLoop, startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { describeStatus } from '../../src/cli/text/loop-status';
import { updateNodeRun } from '../../src/store/node-runs-repository';
import { useEngineHarness } from '../helpers/engine';
import { chain, loopWithSpecs, runsOf, scratchDir, spendWhileRunning, untilLoopStatus } from '../helpers/loops';
import { waitUntil } from '../helpers/wait';

describe('loop budgets', () => {
  const h = useEngineHarness();

  it('blocks before the next node once budget_usd is spent, and goes on after a raise and a continue', async () => {
    const shape = { ...chain(['spend', 'sleep 2'], ['next', 'echo next ran']), settings: { budget_usd: 1.5 } };
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), shape, [{ name: 'spec' }]);
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      await spendWhileRunning(h.ctx, loopId, 'spend', 2);
      await untilLoopStatus(h.ctx, loopId, 'blocked');
      const blocked = await loopStatus(h.ctx, loopId);
      assert.match(
        blocked.live?.blockedReason ?? '',
        /^budget_exhausted: this run spent \$2\.00 of budget_usd \$1\.5, before next\. Raise the budget .*then `canopy loop continue`\.$/,
      );
      assert.deepEqual(
        (await runsOf(h.ctx, loopId)).map((run) => [run.node_name, run.status]),
        [['spend', 'pass']],
        'the work done is kept and the next node has not started',
      );
      assert.match(describeStatus(blocked), /budget {3}\$2\.00 of \$1\.5 this run\n/);

      // A continue with the budget still spent blocks again before the same node.
      await continueLoop(h.ctx, loopId, 'retry');
      await waitUntil('the loop to block again', async () => (await loopStatus(h.ctx, loopId)).live?.status === 'blocked' || undefined);
      assert.equal((await runsOf(h.ctx, loopId)).length, 1);

      await updateLoop(h.ctx, { loop_id: loopId, settings: { budget_usd: 5 } });
      await continueLoop(h.ctx, loopId, 'retry');
      const result = await waitForLoopRun(h.ctx, loopId);
      assert.equal(result.status, 'completed', result.reason ?? '');
    });
    assert.deepEqual(
      (await runsOf(h.ctx, loopId)).map((run) => run.node_name),
      ['spend', 'next'],
    );
  });

  it('counts every run of a spec against its own budget, and names the spec and how to raise it', async () => {
    const workdir = scratchDir();
    const shape = chain(['spend', 'sleep 2'], ['flaky', 'test -f fixed'], ['last', 'true']);
    const loopId = await loopWithSpecs(h.ctx, workdir, shape, []);
    const spec = await createSpec(h.ctx, { loop_id: loopId, name: 'costly', budget_usd: 1.5 });
    await h.withWorker(async () => {
      // The first run spends $1, within the spec's budget, and fails.
      await startLoopRun(h.ctx, loopId);
      await spendWhileRunning(h.ctx, loopId, 'spend', 1);
      assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'failed');

      // A new run has spent nothing itself, but the spec has: $2 of $1.5 once its first node spent again.
      writeFileSync(path.join(workdir, 'fixed'), '');
      await resetLoop(h.ctx, loopId, { specs: [spec.id] });
      await startLoopRun(h.ctx, loopId);
      await spendWhileRunning(h.ctx, loopId, 'spend', 1);
      await untilLoopStatus(h.ctx, loopId, 'blocked');
      const blocked = await loopStatus(h.ctx, loopId);
      assert.match(
        blocked.live?.blockedReason ?? '',
        new RegExp(
          `^budget_exhausted: spec "costly" \\(every run of it\\) spent \\$2\\.00 of budget_usd \\$1\\.5, before flaky\\. ` +
            `Raise the budget \\(\`canopy spec update ${spec.id} --budget-usd\` or \`--budget-tokens\`\\), then \`canopy loop continue\`\\.$`,
        ),
      );
      assert.match(describeStatus(blocked), /costly \(spec_\w+\)( {2}failed in 1 run\(s\))? {2}budget \$1\.5 over every run/);

      await updateSpec(h.ctx, { spec_id: spec.id, budget_usd: 3 });
      await continueLoop(h.ctx, loopId, 'retry');
      assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    });
  });

  it('counts tokens for budget_tokens, and says so when a run’s cost is unknown', async () => {
    const shape = { ...chain(['spend', 'sleep 2'], ['next', 'true']), settings: { budget_tokens: 50 } };
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), shape, [{ name: 'spec' }]);
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      const run = await waitUntil('spend to start', async () => (await runsOf(h.ctx, loopId)).find((r) => r.node_name === 'spend'));
      // A CLI that reports tokens and no cost.
      await updateNodeRun(h.ctx.db, run.id, { executed_platform: 'stand-in', input_tokens: 40, output_tokens: 20 });
      await untilLoopStatus(h.ctx, loopId, 'blocked');
      const blocked = await loopStatus(h.ctx, loopId);
      assert.match(blocked.live?.blockedReason ?? '', /^budget_exhausted: this run used 60 tokens of budget_tokens 50, before next\./);
      assert.match(describeStatus(blocked), /budget {3}60 of 50 tokens this run \(cost unknown for 1 agent run\(s\)\)/);
      await continueLoop(h.ctx, loopId, 'skip');
      assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed', 'a skip skips the node held back');
    });
  });
});
