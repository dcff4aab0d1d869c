// Read commands as a person meets them first: `--version`, and what the store knows printed at once
// when no Temporal server answers, with one line saying the live state is unavailable.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openContext } from '../../src/client/context';
import { importLoop } from '../../src/client/export-import-service';
import { createSpec } from '../../src/client/specs-service';
import { loadConfig } from '../../src/config';
import { PROJECT_ROOT } from '../../src/project';
import { setLoopStatus } from '../../src/store/loops-repository';
import { putSchedule } from '../../src/store/schedules-repository';
import { freePort } from '../../src/temporal/free-port';
import { canopySync } from '../helpers/processes';
import { SEED_EXAMPLE_PATH, tempDir } from '../helpers/store';

const VERSION = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * Half the 60 s a command that needs Temporal waits to connect: a read that waited for Temporal
 * would take longer, and a read slowed by a busy machine (test files run side by side) does not.
 */
const NO_LONG_WAIT_MS = 30_000;

describe('canopy read commands', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  let runningLoop: string;
  let pendingLoop: string;
  let scheduledLoop: string;

  before(async () => {
    home = tempDir('canopy-read-home-');
    // A port nobody listens on: Temporal is down, as after a crash of `canopy up`.
    env = { ...process.env, CANOPY_HOME: home, CANOPY_DATABASE_URL: '', TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` };
    const ctx = await openContext(loadConfig(env));
    try {
      const workdir = tempDir('canopy-read-workdir-');
      const document = JSON.parse(readFileSync(SEED_EXAMPLE_PATH, 'utf8'));
      runningLoop = (await importLoop(ctx, document, { workdir, name: 'was running' })).loop_id;
      pendingLoop = (await importLoop(ctx, document, { workdir, name: 'never ran' })).loop_id;
      await createSpec(ctx, { loop_id: runningLoop, name: 'greeting', content: 'add a greeting' });
      await setLoopStatus(ctx.db, runningLoop, 'running');
      scheduledLoop = (await importLoop(ctx, document, { workdir, name: 'scheduled' })).loop_id;
      await putSchedule(ctx.db, { loop_id: scheduledLoop, cron: null, every: '15m', timezone: 'UTC', queue_id: null });
    } finally {
      await ctx.close();
    }
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  function canopy(...args: string[]) {
    const started = Date.now();
    const result = canopySync(env, args);
    return { ...result, elapsedMs: Date.now() - started };
  }

  for (const flag of ['--version', '-V']) {
    it(`${flag} prints the package version`, () => {
      const printed = canopy(flag);
      assert.equal(printed.status, 0, printed.stderr);
      assert.equal(printed.stdout.trim(), VERSION);
    });
  }

  it('loop info prints the store’s view of a running loop and one line saying why the live state is missing', () => {
    const info = canopy('loop', 'info', runningLoop);
    assert.equal(info.status, 0, info.stderr);
    assert.match(info.stdout, /^was running \(loop_\w+\)\s+running/);
    assert.match(info.stdout, /pending\s+greeting/);
    const notices = info.stdout.split('\n').filter((line) => line.startsWith('live state unavailable'));
    assert.equal(notices.length, 1, info.stdout);
    assert.match(notices[0], new RegExp(`Temporal at ${env.TEMPORAL_ADDRESS} did not answer`));
    assert.ok(info.elapsedMs < NO_LONG_WAIT_MS, `loop info took ${info.elapsedMs} ms`);
  });

  it('loop info draws the graph from the store and links the last run to its Temporal UI page', () => {
    const info = canopy('loop', 'info', runningLoop);
    assert.match(info.stdout, /graph\n {2}pending\s+implementer {2}round 1/);
    assert.match(info.stdout, /reviewers \[2 models\] quorum 2 of 2/);
    const json = JSON.parse(canopy('loop', 'info', pendingLoop, '--json').stdout);
    assert.deepEqual(
      json.picture.vertices.map((vertex: { name: string }) => vertex.name),
      ['implementer', 'reviewers', 'committer'],
    );
  });

  it('loop info --json carries the reason in live_unavailable', () => {
    const info = canopy('loop', 'info', runningLoop, '--json');
    assert.equal(info.status, 0, info.stderr);
    const report = JSON.parse(info.stdout);
    assert.equal(report.live, null);
    assert.match(report.live_unavailable, /did not answer/);
  });

  it('loop info on a loop with no open run never asks Temporal', () => {
    const info = canopy('loop', 'info', pendingLoop, '--json');
    assert.equal(info.status, 0, info.stderr);
    assert.equal(JSON.parse(info.stdout).live_unavailable, null);
  });

  it('loop info prints a schedule’s timing from the store and one line saying why its firings are missing', () => {
    const info = canopy('loop', 'info', scheduledLoop);
    assert.equal(info.status, 0, info.stderr);
    assert.match(
      info.stdout,
      new RegExp(
        `^schedule runs its own specs every 15m \\(schedule-${scheduledLoop}\\)\n {9}schedule state unavailable: Temporal at ${env.TEMPORAL_ADDRESS} did not answer`,
        'm',
      ),
    );
    assert.ok(info.elapsedMs < NO_LONG_WAIT_MS, `loop info took ${info.elapsedMs} ms`);
    const report = JSON.parse(canopy('loop', 'info', scheduledLoop, '--json').stdout);
    assert.deepEqual([report.schedule.every, report.schedule.next_firings], ['15m', []]);
  });

  it('loop list, get and runs answer from the store alone', () => {
    const listed = canopy('loop', 'list');
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /was running\s+running/);
    assert.match(listed.stdout, /never ran\s+pending/);
    for (const args of [
      ['loop', 'get', runningLoop],
      ['loop', 'runs', runningLoop],
    ]) {
      const read = canopy(...args);
      assert.equal(read.status, 0, `${args.join(' ')}: ${read.stderr}`);
      assert.ok(read.elapsedMs < NO_LONG_WAIT_MS, `${args.join(' ')} took ${read.elapsedMs} ms`);
    }
  });

  it('doctor says at once that Temporal does not answer, and why', () => {
    const doctor = canopy('doctor', '--json');
    assert.equal(doctor.status, 1);
    const report = JSON.parse(doctor.stdout);
    assert.equal(report.temporal_reachable, false);
    assert.ok(report.temporal_error, 'the reason Temporal did not answer');
    assert.equal(report.store.ok, true);
  });
});
