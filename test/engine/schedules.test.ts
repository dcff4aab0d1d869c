// Recurring schedules on a real dev server: firings run the pending specs (the loop's or a queue's),
// skip while a run is open, stop when unscheduled, and bad values are refused before anything changes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loopStatus } from '../../src/client/loop-status-service';
import { archiveLoop, deleteLoop } from '../../src/client/loops-service';
import { addQueueSpec, createQueue } from '../../src/client/queues-service';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { describeLoopSchedule, scheduleLoop, unscheduleLoop } from '../../src/client/schedule-service';
import { createSpec } from '../../src/client/specs-service';
import { getLoop } from '../../src/store/loops-repository';
import { getSchedule } from '../../src/store/schedules-repository';
import { getSpec } from '../../src/store/specs-repository';
import { temporalClientSdk } from '../../src/temporal/sdk';
import { useEngineHarness } from '../helpers/engine';
import { check, loopWithSpecs, runsOf, scratchDir } from '../helpers/loops';
import { assertRefused, assertRefusedUnchanged } from '../helpers/store';
import { waitUntil } from '../helpers/wait';

describe('recurring schedules', { skip: !process.env.CANOPY_TEST_TEMPORAL_ADDRESS && 'needs the dev server `npm test` starts' }, () => {
  const h = useEngineHarness();
  const loopOf = (command: string, specs: string[] = ['first']) =>
    loopWithSpecs(
      h.ctx,
      scratchDir(),
      { nodes: [check('only', 1, command)] },
      specs.map((name) => ({ name })),
    );
  const statusOf = async (loopId: string) => (await getLoop(h.ctx.db, loopId))!.status;
  const loopRuns = (loopId: string) => h.ctx.db.selectFrom('loop_runs').selectAll().where('loop_id', '=', loopId).execute();
  const scheduleHandle = async (loopId: string) => (await h.ctx.temporal()).schedule.getHandle(`schedule-${loopId}`);
  const scheduleIsGone = async (loopId: string) => {
    const { ScheduleNotFoundError } = temporalClientSdk();
    await assert.rejects((await scheduleHandle(loopId)).describe(), ScheduleNotFoundError);
  };
  const completed = (loopId: string, what: string) => waitUntil(what, async () => (await statusOf(loopId)) === 'completed', 60_000);
  const schedule = async (loopId: string) => (await describeLoopSchedule(h.ctx, loopId))!;
  /** When each workflow the loop's schedule started began, as Temporal's visibility lists them. */
  const firingsOf = async (loopId: string) => {
    const started: number[] = [];
    const listed = (await h.ctx.temporal()).workflow.list({ query: `TemporalScheduledById = "schedule-${loopId}"` });
    for await (const workflow of listed) started.push(workflow.startTime.getTime());
    return started;
  };

  it('fires at its interval and runs the pending specs, again when more come, and fires no more once unscheduled', async () => {
    const loopId = await loopOf('echo ran');
    await h.withWorker(async () => {
      assert.deepEqual(await scheduleLoop(h.ctx, { loop_id: loopId, every: '2s' }), {
        loop_id: loopId,
        schedule_id: `schedule-${loopId}`,
        cron: null,
        every: '2s',
        timezone: 'UTC',
        queue_id: null,
      });
      await completed(loopId, 'a firing to run the loop to completion');

      const idle = await waitUntil('a firing with nothing to run', async () => {
        const report = (await loopStatus(h.ctx, loopId)).schedule!;
        return report.last_firing?.outcome === 'skipped' && report;
      });
      assert.match(idle.last_firing!.detail!, /no pending specs/);
      assert.equal(idle.unavailable, null);
      const next = idle.next_firings.map((time) => Date.parse(time));
      assert.equal(next.length, 5);
      assert.deepEqual(
        next.slice(1).map((time, index) => time - next[index]),
        [2000, 2000, 2000, 2000],
      );

      const second = await createSpec(h.ctx, { loop_id: loopId, name: 'second' });
      await waitUntil(
        'a later firing to run the new spec',
        async () => (await getSpec(h.ctx.db, second.id))!.status === 'completed',
        60_000,
      );
      assert.equal((await loopRuns(loopId)).length, 2);

      assert.deepEqual(await unscheduleLoop(h.ctx, loopId), { loop_id: loopId, schedule_id: `schedule-${loopId}`, removed: true });
      const removedAt = Date.now();
      await scheduleIsGone(loopId);
      assert.equal((await loopStatus(h.ctx, loopId)).schedule, null);
      // Three intervals' worth of firings that must not come; one already under way when it was removed may still start.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      const firings = await firingsOf(loopId);
      assert.ok(firings.length >= 2, `it fired before: ${firings.length}`);
      assert.deepEqual(
        firings.filter((start) => start > removedAt + 1_000).map((start) => new Date(start).toISOString()),
        [],
        'no firing after it was removed',
      );
    });
    assert.deepEqual(await unscheduleLoop(h.ctx, loopId), { loop_id: loopId, schedule_id: `schedule-${loopId}`, removed: false });
  });

  it('skips the firings that come while the run it started goes on, and leaves that run alone', async () => {
    const loopId = await loopOf('sleep 10');
    await h.withWorker(async () => {
      await scheduleLoop(h.ctx, { loop_id: loopId, every: '2s' });
      await waitUntil('a firing to start the run', async () => (await statusOf(loopId)) === 'running');
      const before = (await schedule(loopId)).skipped_while_running;
      const during = await waitUntil('a firing skipped while the run goes on', async () => {
        const report = await schedule(loopId);
        return report.skipped_while_running > before && report;
      });
      assert.equal(during.last_firing?.outcome, 'started');
      assert.equal(during.last_firing.detail, `started loop-${loopId}`);
      await completed(loopId, 'the run to complete');
      await unscheduleLoop(h.ctx, loopId);
    });
    assert.equal((await loopRuns(loopId)).length, 1, 'one loop run while it ran');
    assert.deepEqual(
      (await runsOf(h.ctx, loopId)).map((run) => [run.node_name, run.outcome]),
      [['only', 'pass']],
    );
  });

  it('skips a firing, saying why, while a run started some other way is open', async () => {
    const loopId = await loopOf('sleep 10');
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      await scheduleLoop(h.ctx, { loop_id: loopId, every: '2s' });
      const skipped = await waitUntil('a firing to skip', async () => {
        const last = (await schedule(loopId)).last_firing;
        return last?.outcome === 'skipped' && last;
      });
      assert.match(
        skipped.detail!,
        new RegExp(`^the loop is running: a run of it started another way is open \\(workflow loop-${loopId}\\)`),
      );
      const result = await (await h.ctx.temporal()).workflow.getHandle(skipped.workflow_id).result();
      assert.match(String(result), /^skipped: the loop is running/, 'the firing’s workflow says so in the Temporal UI');
      await unscheduleLoop(h.ctx, loopId);
      assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    });
    assert.equal((await loopRuns(loopId)).length, 1);
  });

  it('drains a queue at each firing when given one', async () => {
    const workdir = scratchDir();
    const loopId = await loopWithSpecs(h.ctx, workdir, { nodes: [check('say', 1, 'echo "{{spec_name}}"')] }, []);
    const queue = await createQueue(h.ctx, { name: `scheduled-${Date.now()}` });
    const queued = await createSpec(h.ctx, { name: 'queued', workdir });
    await addQueueSpec(h.ctx, { queue_id: queue.id, spec_id: queued.id });
    await h.withWorker(async () => {
      assert.equal((await scheduleLoop(h.ctx, { loop_id: loopId, every: '2s', queue_id: queue.id })).queue_id, queue.id);
      await waitUntil('a firing to drain the queue', async () => (await getSpec(h.ctx.db, queued.id))!.status === 'completed', 60_000);
      await unscheduleLoop(h.ctx, loopId);
    });
    assert.deepEqual(
      (await loopRuns(loopId)).map((run) => run.queue_id),
      [queue.id],
    );
  });

  it('reads cron times in its time zone, and is updated in place', async () => {
    const loopId = await loopOf('true');
    await scheduleLoop(h.ctx, { loop_id: loopId, cron: '0 9 * * MON-FRI', timezone: 'Europe/Paris' });
    const report = await schedule(loopId);
    assert.deepEqual([report.cron, report.every, report.timezone], ['0 9 * * MON-FRI', null, 'Europe/Paris']);
    const inParis = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', weekday: 'short', hour: '2-digit', minute: '2-digit' });
    for (const time of report.next_firings) assert.match(inParis.format(new Date(time)), /^(Mon|Tue|Wed|Thu|Fri) 09:00$/, time);
    assert.equal(report.last_firing, null);
    const created = (await (await scheduleHandle(loopId)).describe()).info.createdAt;

    await scheduleLoop(h.ctx, { loop_id: loopId, every: '1h' });
    const updated = await (await scheduleHandle(loopId)).describe();
    assert.deepEqual(updated.info.createdAt, created, 'the same schedule, updated');
    assert.deepEqual(
      updated.spec.intervals?.map((interval) => interval.every),
      [3_600_000],
    );
    assert.equal((await schedule(loopId)).every, '1h');
    await unscheduleLoop(h.ctx, loopId);
  });

  it('refuses a bad value, naming the field and the fix, before Temporal or the store is touched', async () => {
    const loopId = await loopOf('true');
    const refusals: [Record<string, string>, string, RegExp][] = [
      [{ cron: '0 9 * * *', every: '1h' }, 'cron, every', /give one of them, not both/],
      [{}, 'cron, every', /give one: cron, a cron expression such as '0 9 \* \* MON-FRI'/],
      [{ cron: 'weekdays at nine' }, 'cron', /has 3 field\(s\); give 5 \(minute hour day-of-month month day-of-week\)/],
      [{ cron: '0 0 9 * * MON' }, 'cron', /has 6 field\(s\).*use every for an interval in seconds/],
      [{ cron: '0 9 * * MON?' }, 'cron', /the day-of-week field 'MON\?'/],
      [{ cron: '0 9 * * 1#2' }, 'cron', /'#'.*'0 9 8-14 \* MON'/],
      [{ cron: '@every 5m' }, 'cron', /give it as every instead/],
      [{ cron: '@fortnightly' }, 'cron', /not a shorthand canopy knows/],
      [{ cron: 'CRON_TZ=Europe/Paris 0 9 * * *' }, 'cron', /give the time zone as timezone/],
      [{ cron: '61 * * * *' }, 'cron', /^'61 \* \* \* \*' was refused by Temporal: Minute is not in range \[0-59\]/],
      [{ every: '15 minutes' }, 'every', /not an interval; give a whole number and one unit s, m, h or d/],
      [{ every: '0s' }, 'every', /give at least 1s/],
      [{ every: '400d' }, 'every', /longer than 366d; use cron/],
      [{ cron: '0 9 * * *', timezone: 'Mars/Olympus' }, 'timezone', /not an IANA time zone; give a name such as 'Europe\/Paris'/],
      [{ cron: '0 9 * * *', timezone: 'europe/paris' }, 'timezone', /case-sensitive; write 'Europe\/Paris'/],
      [{ every: '1d', timezone: 'Europe/Paris' }, 'timezone', /applies to cron times only.*'0 0 \* \* \*' with timezone/],
    ];
    for (const [timing, field, message] of refusals) {
      await assertRefusedUnchanged(h.ctx, () => scheduleLoop(h.ctx, { loop_id: loopId, ...timing }), {
        code: 'invalid_input',
        field,
        message,
      });
    }
    await assertRefusedUnchanged(h.ctx, () => scheduleLoop(h.ctx, { loop_id: 'loop_missing', every: '1h' }), {
      code: 'not_found',
      message: /No loop with id 'loop_missing'.*canopy loop list/,
    });
    await assertRefusedUnchanged(h.ctx, () => scheduleLoop(h.ctx, { loop_id: loopId, every: '1h', queue_id: 'queue_missing' }), {
      code: 'not_found',
      message: /No queue with id 'queue_missing'.*canopy queue list/,
    });
    await assertRefused(unscheduleLoop(h.ctx, 'loop_missing'), { code: 'not_found' });
    await scheduleIsGone(loopId);

    await archiveLoop(h.ctx, loopId);
    await assertRefusedUnchanged(h.ctx, () => scheduleLoop(h.ctx, { loop_id: loopId, every: '1h' }), {
      code: 'refused',
      message: /archived; restore it with `canopy loop restore/,
    });
    await scheduleIsGone(loopId);
  });

  it('leaves the schedule it had as it was when a new value is refused, by canopy or by Temporal', async () => {
    const loopId = await loopOf('true');
    await scheduleLoop(h.ctx, { loop_id: loopId, every: '1h' });
    const spec = async () => (await (await scheduleHandle(loopId)).describe()).spec;
    const before = await spec();
    await assertRefusedUnchanged(h.ctx, () => scheduleLoop(h.ctx, { loop_id: loopId, cron: '0 25 * * *' }), {
      code: 'invalid_input',
      field: 'cron',
      message: /refused by Temporal: Hour is not in range/,
    });
    // A zone Node's ICU still knows and the server's tz database dropped.
    await assertRefusedUnchanged(h.ctx, () => scheduleLoop(h.ctx, { loop_id: loopId, cron: '0 9 * * *', timezone: 'SystemV/EST5' }), {
      code: 'invalid_input',
      field: 'timezone',
      message: /^'SystemV\/EST5' was refused by Temporal: unknown time zone SystemV\/EST5$/,
    });
    assert.deepEqual(await spec(), before);
    await unscheduleLoop(h.ctx, loopId);
  });

  it('removes the schedule when its loop is archived or deleted', async () => {
    const archived = await loopOf('true');
    await scheduleLoop(h.ctx, { loop_id: archived, every: '1h' });
    await archiveLoop(h.ctx, archived);
    await scheduleIsGone(archived);
    assert.equal(await getSchedule(h.ctx.db, archived), undefined);

    const deleted = await loopOf('true');
    await scheduleLoop(h.ctx, { loop_id: deleted, cron: '@daily' });
    await deleteLoop(h.ctx, deleted);
    await scheduleIsGone(deleted);
    assert.equal(await getSchedule(h.ctx.db, deleted), undefined);
  });

  it('reports a firing no worker has taken as pending, and one whose workflow Temporal no longer keeps as unknown', async () => {
    const loopId = await loopOf('true', []);
    await scheduleLoop(h.ctx, { loop_id: loopId, every: '2s' });
    await waitUntil('a firing with no worker to take it', async () => (await schedule(loopId)).last_firing?.outcome === 'pending');
    const handle = await scheduleHandle(loopId);
    await handle.pause('so that its last firing stays the last');
    const last = (await handle.describe()).info.recentActions.at(-1)!.action.workflow;
    await (
      await h.ctx.temporal()
    ).workflowService.deleteWorkflowExecution({
      namespace: h.config.namespace,
      workflowExecution: { workflowId: last.workflowId, runId: last.firstExecutionRunId },
    });
    const forgotten = await waitUntil('its workflow to be gone', async () => {
      const firing = (await schedule(loopId)).last_firing;
      return firing?.outcome === 'unknown' && firing;
    });
    assert.deepEqual([forgotten.workflow_id, forgotten.detail], [last.workflowId, 'Temporal no longer keeps its workflow']);
    await unscheduleLoop(h.ctx, loopId);
  });
});
