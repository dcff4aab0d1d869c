// `canopy loop schedule|unschedule` as child processes, and the schedule in `canopy loop info`, on the run's dev server.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { childEnv, useEngineHarness } from '../helpers/engine';
import { canopySync } from '../helpers/processes';
import { check, loopWithSpecs, scratchDir } from '../helpers/loops';

describe('canopy loop schedule', { skip: !process.env.CANOPY_TEST_TEMPORAL_ADDRESS && 'needs the dev server `npm test` starts' }, () => {
  const h = useEngineHarness();
  const canopy = (...args: string[]) => canopySync(childEnv(h.config), args);
  const loop = () => loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('only', 1, 'true')] }, []);

  it('schedules a loop, shows the schedule in loop info, and unschedules it', async () => {
    const loopId = await loop();
    const scheduled = canopy('loop', 'schedule', loopId, '--cron', '0 9 * * MON-FRI', '--timezone', 'Europe/Paris');
    assert.equal(scheduled.status, 0, scheduled.stderr);
    assert.equal(
      scheduled.stdout.trim(),
      `Loop ${loopId} runs its own specs at cron '0 9 * * MON-FRI' (Europe/Paris) (schedule schedule-${loopId}).`,
    );

    const info = canopy('loop', 'info', loopId);
    assert.equal(info.status, 0, info.stderr);
    assert.match(
      info.stdout,
      new RegExp(`^schedule runs its own specs at cron '0 9 \\* \\* MON-FRI' \\(Europe/Paris\\) \\(schedule-${loopId}\\)$`, 'm'),
    );
    assert.match(info.stdout, /^ {9}next \d{4}-\d\d-\d\dT\d\d:00:00\.000Z, /m);

    const replaced = canopy('loop', 'schedule', loopId, '--every', '15m', '--json');
    assert.equal(replaced.status, 0, replaced.stderr);
    assert.equal(JSON.parse(replaced.stdout).every, '15m');

    const removed = canopy('loop', 'unschedule', loopId);
    assert.equal(removed.status, 0, removed.stderr);
    assert.equal(removed.stdout.trim(), `Schedule schedule-${loopId} removed.`);
    assert.equal(JSON.parse(canopy('loop', 'info', loopId, '--json').stdout).schedule, null);
    assert.equal(canopy('loop', 'unschedule', loopId).stdout.trim(), `Loop ${loopId} had no schedule.`);
  });

  it('refuses --cron with --every, and a bad time zone, naming the field, exiting 2 and scheduling nothing', async () => {
    const loopId = await loop();
    const both = canopy('loop', 'schedule', loopId, '--cron', '0 9 * * *', '--every', '1h');
    assert.equal(both.status, 2);
    assert.equal(both.stdout, '');
    assert.match(both.stderr, /^canopy: The schedule is invalid; nothing was changed\.\n {2}- cron, every: give one of them, not both/);

    const zone = canopy('loop', 'schedule', loopId, '--cron', '0 9 * * *', '--timezone', 'Paris', '--json');
    assert.equal(zone.status, 2);
    const { error } = JSON.parse(zone.stderr);
    assert.equal(error.code, 'invalid_input');
    assert.deepEqual(
      error.issues.map((issue: { field: string }) => issue.field),
      ['timezone'],
    );
    assert.equal(JSON.parse(canopy('loop', 'info', loopId, '--json').stdout).schedule, null);
  });
});
