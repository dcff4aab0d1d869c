// loop_schedule, loop_info's schedule and loop_unschedule through `canopy mcp` and the SDK's client, on the run's dev server.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { testTemporalAddress } from '../helpers/engine';
import { directoryIn, tempDir } from '../helpers/store';
import { callOk, callRefused, connectStdio, type StdioSession } from '../helpers/mcp-client';
import { homeOnlyEnv } from '../helpers/processes';

describe('loop schedules over MCP', { skip: !process.env.CANOPY_TEST_TEMPORAL_ADDRESS && 'needs the dev server `npm test` starts' }, () => {
  let home: string;
  let session: StdioSession;

  before(async () => {
    home = tempDir('canopy-mcp-schedule-');
    session = await connectStdio(
      homeOnlyEnv(home, {
        TEMPORAL_ADDRESS: testTemporalAddress(),
        // No worker polls this queue: the schedules here are read, never run.
        CANOPY_TASK_QUEUE: `test-${randomBytes(6).toString('hex')}`,
      }),
    );
  });

  after(async () => {
    await session.client.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('schedules a loop, lists the schedule in loop_info with its next firings, and removes it', async () => {
    const loop = await callOk(session.client, 'loop_create', { name: 'nightly', workdir: directoryIn(home) });
    const scheduled = await callOk(session.client, 'loop_schedule', { loop_id: loop.id, cron: '30 2 * * *', timezone: 'Europe/Paris' });
    assert.deepEqual(scheduled, {
      loop_id: loop.id,
      schedule_id: `schedule-${loop.id}`,
      cron: '30 2 * * *',
      every: null,
      timezone: 'Europe/Paris',
      queue_id: null,
    });
    const { schedule } = await callOk(session.client, 'loop_info', { loop_id: loop.id });
    assert.equal(schedule.cron, '30 2 * * *');
    assert.equal(schedule.next_firings.length, 5);
    assert.equal(schedule.last_firing, null);
    assert.equal(schedule.unavailable, null);

    assert.deepEqual(await callOk(session.client, 'loop_unschedule', { loop_id: loop.id }), {
      loop_id: loop.id,
      schedule_id: `schedule-${loop.id}`,
      removed: true,
    });
    assert.equal((await callOk(session.client, 'loop_info', { loop_id: loop.id })).schedule, null);
  });

  it('refuses cron with every, a bad interval and an unknown queue as isError results naming what to change', async () => {
    const loop = await callOk(session.client, 'loop_create', { name: 'refused', workdir: directoryIn(home, 'refused') });
    assert.match(
      await callRefused(session.client, 'loop_schedule', { loop_id: loop.id, cron: '0 9 * * *', every: '1h' }),
      /The schedule is invalid; nothing was changed\.\n {2}- cron, every: give one of them, not both/,
    );
    assert.match(
      await callRefused(session.client, 'loop_schedule', { loop_id: loop.id, every: 'hourly' }),
      /every: 'hourly' is not an interval/,
    );
    assert.match(
      await callRefused(session.client, 'loop_schedule', { loop_id: loop.id, every: '1h', queue_id: 'queue_missing' }),
      /No queue with id 'queue_missing'/,
    );
    assert.equal((await callOk(session.client, 'loop_info', { loop_id: loop.id })).schedule, null);
  });
});
