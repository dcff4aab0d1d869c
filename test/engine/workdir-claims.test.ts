// One workdir runs one loop at a time, on a real dev server: a second loop's run is refused (service,
// CLI, MCP) naming the loop and run that hold the workdir, changing nothing; starts at the same instant
// let one through; share_workdir and sandboxes are not held back; scheduled and autorun starts wait.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { scheduleAutorun } from '../../src/client/autorun-service';
import { loopStatus } from '../../src/client/loop-status-service';
import { startLoopRun, stopLoop, waitForLoopRun } from '../../src/client/runs-service';
import { scheduleLoop, unscheduleLoop } from '../../src/client/schedule-service';
import { WorkdirBusyError } from '../../src/client/workdir-claim-service';
import type { ClientContext } from '../../src/client/context';
import type { LoopSettings } from '../../src/domain/loop';
import { loopWorkflowId } from '../../src/contract';
import { getLoop } from '../../src/store/loops-repository';
import { temporalClientSdk } from '../../src/temporal/sdk';
import { describeEngineOnEachDialect } from '../helpers/engine-dialects';
import { childEnv, useEngineHarness, type EngineHarness } from '../helpers/engine';
import { tempGitRepo } from '../helpers/git';
import { callRefused, connectStdio } from '../helpers/mcp-client';
import { check, loopWithSpecs, runsOf, scratchDir, untilLoopStatus } from '../helpers/loops';
import { runCanopy } from '../helpers/processes';
import { assertRefused, assertRefusedUnchanged, storeSnapshot } from '../helpers/store';
import { waitUntil } from '../helpers/wait';

const needsServer = { skip: !process.env.CANOPY_TEST_TEMPORAL_ADDRESS && 'needs the dev server `npm test` starts' };

/** A check that runs until the test opens its gate (a file in the workdir, which a confined check sees), holding its loop's run open. */
function gate(workdir: string): { command: string; open(): void } {
  const file = path.join(workdir, 'gate-open');
  return { command: `while [ ! -e '${file}' ]; do sleep 0.1; done`, open: () => writeFileSync(file, '') };
}

const loopOf = (ctx: ClientContext, workdir: string, command: string, settings?: LoopSettings) =>
  loopWithSpecs(ctx, workdir, { nodes: [check('only', 1, command)], settings }, [{ name: 'spec' }]);

const runIdOf = async (ctx: ClientContext, loopId: string) =>
  (await ctx.db.selectFrom('loop_runs').select('id').where('loop_id', '=', loopId).orderBy('started_at', 'desc').executeTakeFirstOrThrow())
    .id;

const loopRunCount = async (ctx: ClientContext, loopId: string) =>
  (await ctx.db.selectFrom('loop_runs').select('id').where('loop_id', '=', loopId).execute()).length;

const statusOf = async (ctx: ClientContext, loopId: string) => (await getLoop(ctx.db, loopId))!.status;

/** The refusal's words: the loop that holds the workdir, its run, and the ways out. */
function holderPattern(holderId: string, runId: string): RegExp {
  return new RegExp(`held by loop .* \\(${holderId}\\), whose run ${runId} is open \\(running since .*one workdir runs one loop at a time`);
}

async function workflowIsMissing(h: EngineHarness, loopId: string): Promise<void> {
  const { WorkflowNotFoundError } = temporalClientSdk();
  await assert.rejects((await h.ctx.temporal()).workflow.getHandle(loopWorkflowId(loopId)).describe(), WorkflowNotFoundError);
}

describe('one loop at a time in a workdir', needsServer, () => {
  const h = useEngineHarness();

  it('refuses a second loop’s run, by the service, the CLI and MCP, naming the loop and run that hold the workdir, and changes nothing', async () => {
    const workdir = scratchDir();
    const hold = gate(workdir);
    const holder = await loopOf(h.ctx, workdir, hold.command);
    const second = await loopOf(h.ctx, workdir, 'echo second');
    const env = childEnv(h.config);
    const session = await connectStdio(
      Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    );
    try {
      await h.withWorker(async () => {
        await startLoopRun(h.ctx, holder);
        // Its check running, the holder writes nothing more until the gate opens: what changes after is the refusals'.
        await waitUntil('the holder’s check to run', async () => (await runsOf(h.ctx, holder)).some((run) => run.pgid !== null));
        const refusal = holderPattern(holder, await runIdOf(h.ctx, holder));

        const error = await assertRefusedUnchanged(h.ctx, () => startLoopRun(h.ctx, second), { code: 'conflict', message: refusal });
        assert.ok(error instanceof WorkdirBusyError);
        assert.match(error.message, new RegExp(`loop .* \\(${second}\\) was not started`));
        assert.match(error.message, new RegExp(`canopy loop run ${second} --sandbox`));
        assert.match(error.message, /share_workdir: true/);

        const before = await storeSnapshot(h.ctx);
        const cli = await runCanopy(env, 'loop', 'run', second);
        assert.notEqual(cli.status, 0, cli.stdout);
        assert.match(cli.stderr, refusal);
        assert.match(await callRefused(session.client, 'loop_run', { loop_id: second }), refusal);
        assert.deepEqual(await storeSnapshot(h.ctx), before, 'the CLI and MCP refusals changed the store');

        assert.equal(await statusOf(h.ctx, second), 'pending');
        assert.equal(await loopRunCount(h.ctx, second), 0);
        await workflowIsMissing(h, second);
        assert.equal(await statusOf(h.ctx, holder), 'running', 'the holder runs on');

        hold.open();
        assert.equal((await waitForLoopRun(h.ctx, holder)).status, 'completed');
        // Its run has ended: the workdir is free for the next loop.
        await startLoopRun(h.ctx, second);
        assert.equal((await waitForLoopRun(h.ctx, second)).status, 'completed');
      });
    } finally {
      await session.client.close();
    }
  });

  it('lets a loop with share_workdir run beside the loop that holds the workdir', async () => {
    const workdir = scratchDir();
    const hold = gate(workdir);
    const holder = await loopOf(h.ctx, workdir, hold.command);
    const sharing = await loopOf(h.ctx, workdir, 'echo shared', { share_workdir: true });
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, holder);
      await untilLoopStatus(h.ctx, holder, 'running');
      await startLoopRun(h.ctx, sharing);
      assert.equal((await waitForLoopRun(h.ctx, sharing)).status, 'completed');
      assert.equal(await statusOf(h.ctx, holder), 'running', 'both ran at once');
      hold.open();
      assert.equal((await waitForLoopRun(h.ctx, holder)).status, 'completed');
    });
  });

  it('does not hold back a sandboxed run, which works in a worktree of its own', async () => {
    const workdir = tempGitRepo();
    const hold = gate(workdir);
    const holder = await loopOf(h.ctx, workdir, hold.command);
    const sandboxed = await loopOf(h.ctx, workdir, 'echo sandboxed');
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, holder);
      await untilLoopStatus(h.ctx, holder, 'running');
      assert.equal((await startLoopRun(h.ctx, sandboxed, { sandbox: true })).sandboxed, true);
      assert.equal((await waitForLoopRun(h.ctx, sandboxed)).status, 'completed');
      assert.equal(await statusOf(h.ctx, holder), 'running', 'both ran at once');
      hold.open();
      assert.equal((await waitForLoopRun(h.ctx, holder)).status, 'completed');
    });
  });

  it('makes a scheduled start wait while another loop’s run holds the workdir, says so in loop info, and runs once that run ends', async () => {
    const workdir = scratchDir();
    const hold = gate(workdir);
    const holder = await loopOf(h.ctx, workdir, hold.command);
    const scheduled = await loopOf(h.ctx, workdir, 'echo scheduled');
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, holder);
      await untilLoopStatus(h.ctx, holder, 'running');
      const runId = await runIdOf(h.ctx, holder);
      await scheduleLoop(h.ctx, { loop_id: scheduled, every: '2s' });
      const waiting = await waitUntil('the firing to wait for the workdir', async () => {
        const report = await loopStatus(h.ctx, scheduled);
        return report.waiting_for_workdir !== null && report;
      });
      assert.match(
        waiting.waiting_for_workdir!,
        new RegExp(
          `^Workdir .* is held by loop .* \\(${holder}\\), whose run ${runId} is open .*; this start waits for it to end, then runs$`,
        ),
      );
      assert.equal(waiting.schedule!.last_firing!.outcome, 'waiting');
      const info = await runCanopy(childEnv(h.config), 'loop', 'info', scheduled);
      assert.match(info.stdout, new RegExp(`^waiting {2}Workdir .* is held by loop .* \\(${holder}\\)`, 'm'));
      assert.equal(waiting.status, 'pending');
      assert.equal(await loopRunCount(h.ctx, scheduled), 0, 'nothing started while it waits');

      hold.open();
      await untilLoopStatus(h.ctx, holder, 'completed');
      await waitUntil('the waiting firing to run the loop', async () => (await statusOf(h.ctx, scheduled)) === 'completed', 60_000);
      await unscheduleLoop(h.ctx, scheduled);
      const after = await loopStatus(h.ctx, scheduled);
      assert.equal(after.waiting_for_workdir, null);
      assert.equal(await loopRunCount(h.ctx, scheduled), 1);
    });
  });

  it('ends a start that waits for the workdir when its schedule is removed or its autorun cancelled, so it starts nothing later', async () => {
    const workdir = scratchDir();
    const hold = gate(workdir);
    const holder = await loopOf(h.ctx, workdir, hold.command);
    const scheduled = await loopOf(h.ctx, workdir, 'echo scheduled');
    const autorun = await loopOf(h.ctx, workdir, 'echo autorun');
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, holder);
      await untilLoopStatus(h.ctx, holder, 'running');
      await scheduleLoop(h.ctx, { loop_id: scheduled, every: '2s' });
      await scheduleAutorun(h.ctx, autorun, new Date(Date.now() + 2_000).toISOString());
      const waitingFirings = await Promise.all(
        [scheduled, autorun].map((loopId) =>
          waitUntil(`the start of ${loopId} to wait`, async () => {
            const report = await loopStatus(h.ctx, loopId);
            return report.waiting_for_workdir !== null && (report.schedule?.last_firing?.workflow_id ?? report.loop_id);
          }),
        ),
      );
      await unscheduleLoop(h.ctx, scheduled);
      await scheduleAutorun(h.ctx, autorun, null);
      const client = await h.ctx.temporal();
      const [scheduledFiring] = waitingFirings;
      assert.equal((await client.workflow.getHandle(scheduledFiring).describe()).status.name, 'TERMINATED');
      // Visibility lists a change a moment after it.
      await waitUntil('the autorun’s firing to be listed terminated', async () => {
        const statuses: string[] = [];
        for await (const run of client.workflow.list({ query: `TemporalScheduledById = "autorun-${autorun}"` }))
          statuses.push(run.status.name);
        return statuses.join() === 'TERMINATED';
      });

      hold.open();
      assert.equal((await waitForLoopRun(h.ctx, holder)).status, 'completed');
      for (const loopId of [scheduled, autorun]) {
        assert.equal(await statusOf(h.ctx, loopId), 'pending');
        assert.equal(await loopRunCount(h.ctx, loopId), 0);
      }
    });
  });

  it('makes an autorun of a pending loop wait while another loop’s run holds the workdir, saying so in loop info, then start it', async () => {
    const workdir = scratchDir();
    const hold = gate(workdir);
    const holder = await loopOf(h.ctx, workdir, hold.command);
    const pending = await loopOf(h.ctx, workdir, 'echo started');
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, holder);
      await untilLoopStatus(h.ctx, holder, 'running');
      await scheduleAutorun(h.ctx, pending, new Date(Date.now() + 2_000).toISOString());
      const waiting = await waitUntil(
        'the autorun to wait for the workdir',
        async () => (await loopStatus(h.ctx, pending)).waiting_for_workdir,
      );
      assert.match(waiting, new RegExp(`held by loop .* \\(${holder}\\)`));
      assert.equal(await statusOf(h.ctx, pending), 'pending');
      assert.equal(await loopRunCount(h.ctx, pending), 0);

      hold.open();
      await waitUntil('the autorun to start the loop', async () => (await statusOf(h.ctx, pending)) === 'completed', 60_000);
      assert.equal((await loopStatus(h.ctx, pending)).waiting_for_workdir, null);
    });
  });

  it('makes an autorun of a failed loop wait while another loop’s run holds the workdir, then continue it', async () => {
    const workdir = scratchDir();
    const hold = gate(workdir);
    const holder = await loopOf(h.ctx, workdir, hold.command);
    const flag = path.join(workdir, 'failed-once');
    const resumed = await loopOf(h.ctx, workdir, `test -e '${flag}' || { touch '${flag}'; exit 1; }`);
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, resumed);
      assert.equal((await waitForLoopRun(h.ctx, resumed)).status, 'failed');
      await startLoopRun(h.ctx, holder);
      await untilLoopStatus(h.ctx, holder, 'running');
      await scheduleAutorun(h.ctx, resumed, new Date(Date.now() + 2_000).toISOString());
      const waiting = await waitUntil(
        'the autorun to wait for the workdir',
        async () => (await loopStatus(h.ctx, resumed)).waiting_for_workdir,
      );
      assert.match(waiting, new RegExp(`held by loop .* \\(${holder}\\)`));
      assert.equal(await statusOf(h.ctx, resumed), 'failed');

      hold.open();
      await waitUntil('the autorun to continue the loop', async () => (await statusOf(h.ctx, resumed)) === 'completed', 60_000);
      assert.equal((await loopStatus(h.ctx, resumed)).waiting_for_workdir, null);
    });
  });
});

describeEngineOnEachDialect('starts on one workdir at the same instant', (h) => {
  it('let exactly one run through, refusing the others by name, even through a symlink; the workdir is free once that run ends', async () => {
    const workdir = scratchDir();
    const linkParent = scratchDir();
    mkdirSync(linkParent, { recursive: true });
    const link = path.join(linkParent, 'link');
    symlinkSync(workdir, link);
    const loops: string[] = [];
    for (const dir of [workdir, link, workdir, link]) loops.push(await loopOf(h.ctx, dir, 'sleep 300'));
    // No worker: each start only records its run and asks Temporal to start the workflow.
    const starts = await Promise.allSettled(loops.map((loopId) => startLoopRun(h.ctx, loopId)));
    const winners = loops.filter((_, index) => starts[index].status === 'fulfilled');
    assert.equal(winners.length, 1, `one start got through: ${JSON.stringify(starts.map((start) => start.status))}`);
    const [winner] = winners;
    const refusal = holderPattern(winner, await runIdOf(h.ctx, winner));
    for (const [index, start] of starts.entries()) {
      if (start.status === 'fulfilled') continue;
      assert.ok(start.reason instanceof WorkdirBusyError, String(start.reason));
      assert.match(start.reason.message, refusal);
      assert.equal(await statusOf(h.ctx, loops[index]), 'pending');
      assert.equal(await loopRunCount(h.ctx, loops[index]), 0);
    }

    await stopLoop(h.ctx, winner, 1_000);
    const next = loops.find((loopId) => loopId !== winner)!;
    await startLoopRun(h.ctx, next);
    assert.equal(await statusOf(h.ctx, next), 'running');
    await stopLoop(h.ctx, next, 1_000);
  });

  it('does not let a run whose workflow was ended outside canopy hold the workdir once its start is well past', async () => {
    const workdir = scratchDir();
    const gone = await loopOf(h.ctx, workdir, 'sleep 300');
    const next = await loopOf(h.ctx, workdir, 'sleep 300');
    await startLoopRun(h.ctx, gone);
    await (await h.ctx.temporal()).workflow.getHandle(loopWorkflowId(gone)).terminate('ended outside canopy');
    assert.equal(await statusOf(h.ctx, gone), 'running', 'the store still shows its run open');
    // Just claimed, it may be a start still on its way to Temporal: it holds the workdir.
    // The holder's run id is read first: a refusal that came while it was read would have had no handler yet.
    const holder = holderPattern(gone, await runIdOf(h.ctx, gone));
    await assertRefused(startLoopRun(h.ctx, next), { code: 'conflict', message: holder });
    assert.equal(await statusOf(h.ctx, gone), 'running');
    const threeMinutesAgo = new Date(Date.now() - 3 * 60_000).toISOString();
    await h.ctx.db.updateTable('workdir_claims').set({ claimed_at: threeMinutesAgo }).where('loop_id', '=', gone).execute();
    await startLoopRun(h.ctx, next);
    assert.equal(await statusOf(h.ctx, gone), 'failed');
    assert.equal(await statusOf(h.ctx, next), 'running');
    await stopLoop(h.ctx, next, 1_000);
  });
});
