// A way back from any state: `loop stop` ends a run however stuck it is, and a workflow ended
// outside canopy shows as such on the next read; either way the loop can then be reset.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { isGroupAlive } from '../../src/process/process-group';
import { loopStatus } from '../../src/client/loop-status-service';
import { updateLoop } from '../../src/client/loops-service';
import { continueLoop, startLoopRun, stopLoop, waitForLoopRun } from '../../src/client/runs-service';
import { resetLoop } from '../../src/client/reset-service';
import { loopWorkflowId } from '../../src/contract';
import { useEngineHarness } from '../helpers/engine';
import { check, loopWithSpecs, runsOf, scratchDir } from '../helpers/loops';
import { assertRefused } from '../helpers/store';
import { waitUntil } from '../helpers/wait';

const QUICK = { timeout: 60_000 };

describe('stopping loops', () => {
  const h = useEngineHarness();
  const sleeper = () => loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('sleeper', 1, 'sleep 300')] }, [{ name: 'spec' }]);

  async function assertResettable(loopId: string) {
    assert.equal((await resetLoop(h.ctx, loopId)).status, 'pending');
  }

  it('stops a running loop: its process group is killed, --wait returns, and the loop is failed with reason stopped', QUICK, async () => {
    const loopId = await sleeper();
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      const waiting = waitForLoopRun(h.ctx, loopId).then(
        () => 'completed',
        (error: Error) => error.name,
      );
      const { pgid } = await waitUntil('the check to start', async () => (await runsOf(h.ctx, loopId)).find((r) => r.pgid !== null));
      assert.deepEqual(await stopLoop(h.ctx, loopId, 30_000), {
        loop_id: loopId,
        status: 'failed',
        stopped: 'run',
        workflow: 'cancelled',
      });
      assert.equal(await waiting, 'WorkflowFailedError');
      assert.ok(!isGroupAlive(pgid!), 'the check’s process group was killed');
    });
    const info = await loopStatus(h.ctx, loopId);
    assert.deepEqual(
      [info.status, info.last_run?.status, info.last_run?.failure_kind, info.last_run?.reason],
      ['failed', 'failed', 'stopped', 'stopped'],
    );
    assert.deepEqual(
      info.specs.map((s) => s.status),
      ['failed'],
    );
    assert.deepEqual(
      (await runsOf(h.ctx, loopId)).map((r) => r.status),
      ['cancelled'],
    );
    await assertResettable(loopId);
  });

  it('terminates a run no worker executes once it does not finish cancelling in time', QUICK, async () => {
    const loopId = await sleeper();
    await startLoopRun(h.ctx, loopId);
    assert.equal((await stopLoop(h.ctx, loopId, 1_000)).workflow, 'terminated');
    assert.equal((await loopStatus(h.ctx, loopId)).last_run?.reason, 'stopped');
    await assertResettable(loopId);
  });

  it('shows a loop whose workflow was terminated outside canopy as failed, so it can be reset', QUICK, async () => {
    const loopId = await sleeper();
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      await waitUntil('the check to start', async () => (await runsOf(h.ctx, loopId)).find((r) => r.pgid !== null));
      await (await h.ctx.temporal()).workflow.getHandle(loopWorkflowId(loopId)).terminate('by hand');
    });
    const info = await loopStatus(h.ctx, loopId);
    assert.equal(info.status, 'failed');
    assert.equal(info.last_run?.failure_kind, 'workflow_closed');
    assert.match(info.last_run?.reason ?? '', /was terminated outside canopy/);
    await assertResettable(loopId);
  });

  /** A loop whose run ends `outcome` and then runs a hook that sleeps until stopped. */
  async function endedWithSleepingHook(outcome: 'failed' | 'completed', workdir = scratchDir()) {
    const event = outcome === 'failed' ? 'on_failed' : 'on_completed';
    const loopId = await loopWithSpecs(h.ctx, workdir, { nodes: [check('tests', 1, 'test -e fixed')] }, [{ name: 'spec' }]);
    await updateLoop(h.ctx, { loop_id: loopId, hooks: { [event]: [{ command: 'sleep 300' }] } });
    if (outcome === 'completed') writeFileSync(path.join(workdir, 'fixed'), '');
    await startLoopRun(h.ctx, loopId);
    const hook = await waitUntil('the hook to start', async () =>
      (await runsOf(h.ctx, loopId)).find((run) => run.kind === 'hook' && run.pgid !== null),
    );
    return { loopId, hook };
  }

  it(
    'stops the on_failed hooks a failed run still runs, keeping the failure and its resume point, so the loop continues',
    QUICK,
    async () => {
      const workdir = scratchDir();
      await h.withWorker(async () => {
        const { loopId, hook } = await endedWithSleepingHook('failed', workdir);
        assert.equal((await loopStatus(h.ctx, loopId)).status, 'failed');
        await assertRefused(continueLoop(h.ctx, loopId), {
          code: 'conflict',
          message: new RegExp(
            `^Loop ${loopId} is failed, but the hooks of its last run are still running \\(on_failed\\[0\\], node run ${hook.id}\\); ` +
              `wait for them to end, or end them with \`canopy loop stop ${loopId}\`, which keeps the run's outcome, then try again\\.$`,
          ),
        });

        assert.deepEqual(await stopLoop(h.ctx, loopId, 30_000), {
          loop_id: loopId,
          status: 'failed',
          stopped: 'hooks',
          workflow: 'cancelled',
        });
        assert.ok(!isGroupAlive(hook.pgid!), 'the hook’s process group was killed');
        const info = await loopStatus(h.ctx, loopId);
        assert.deepEqual([info.status, info.last_run?.failure_kind], ['failed', 'exit_code'], 'the run’s own failure stands');
        assert.equal((await runsOf(h.ctx, loopId)).find((run) => run.id === hook.id)!.status, 'cancelled');

        writeFileSync(path.join(workdir, 'fixed'), '');
        assert.equal((await continueLoop(h.ctx, loopId)).resumed, 'new_run', 'the resume point is still there');
        assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
      });
    },
  );

  it('stops the on_completed hooks of a completed run and leaves the loop completed', QUICK, async () => {
    await h.withWorker(async () => {
      const { loopId, hook } = await endedWithSleepingHook('completed');
      assert.deepEqual(await stopLoop(h.ctx, loopId, 30_000), {
        loop_id: loopId,
        status: 'completed',
        stopped: 'hooks',
        workflow: 'cancelled',
      });
      assert.ok(!isGroupAlive(hook.pgid!));
      const info = await loopStatus(h.ctx, loopId);
      assert.deepEqual(
        [info.status, info.last_run?.status, info.specs.map((spec) => spec.status)],
        ['completed', 'completed', ['completed']],
      );
    });
  });

  it('refuses to stop a loop with no open run', QUICK, async () => {
    const loopId = await sleeper();
    await assertRefused(stopLoop(h.ctx, loopId), {
      code: 'refused',
      message: /is pending and no run of it is open; there is nothing to stop/,
    });
  });
});
