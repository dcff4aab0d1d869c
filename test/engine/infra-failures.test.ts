// Infrastructure failures: a node killed from outside, one that cannot start or that crashes at
// once is run again infra_retries times, each attempt on record, then takes its error edge, never
// its fail edge; a plain work failure still takes the fail edge and is not retried.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import { tsToMs } from '@temporalio/common/lib/time';
import { getLoop, updateLoop } from '../../src/client/loops-service';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { loopWorkflowId } from '../../src/contract';
import { childEnv, useEngineHarness } from '../helpers/engine';
import { launcherPids, runCanopy } from '../helpers/processes';
import { assertRefusedUnchanged } from '../helpers/store';
import { agent, check, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';
import { waitUntil } from '../helpers/wait';

const SLOW = { timeout: 180_000 };
const KILLED = 'echo started; kill -KILL $$';

describe('infrastructure failures', () => {
  const h = useEngineHarness();
  let intactConfig = '';
  before(() => {
    const config = path.join(h.config.home, 'config.json');
    intactConfig = readFileSync(config, 'utf8');
    const platforms = {
      ...(JSON.parse(intactConfig) as { platforms: Record<string, unknown> }).platforms,
      silent_crash: { argv: ['bash', '-c', 'exit 3', '{{prompt}}'] },
      missing_cli: { argv: ['canopy-test-no-such-cli', '{{prompt}}'] },
    };
    writeFileSync(config, JSON.stringify({ platforms }));
  });
  after(() => writeFileSync(path.join(h.config.home, 'config.json'), intactConfig));

  const attemptsOf = async (loopId: string, node: string) =>
    (await runsOf(h.ctx, loopId)).filter((r) => r.node_name === node).map((r) => [r.status, r.failure_kind]);

  it(
    'retries a check killed by a signal infra_retries times, infra_backoff_seconds apart and doubling, then takes its error edge',
    SLOW,
    async () => {
      const loopId = await loopWithSpecs(
        h.ctx,
        scratchDir(),
        {
          settings: { infra_retries: 2, infra_backoff_seconds: 1 },
          nodes: [check('flaky', 1, KILLED), check('fixer', 2, 'echo fixing'), check('handler', 3, 'echo handled')],
          edges: [
            { source: 'flaky', target: 'fixer', condition: 'fail' },
            { source: 'flaky', target: 'handler', condition: 'error' },
          ],
        },
        [{ name: 'spec' }],
      );
      const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
      assert.equal(result.status, 'completed', result.reason ?? '');
      const runs = await runsOf(h.ctx, loopId);
      const flaky = runs.filter((r) => r.node_name === 'flaky');
      assert.deepEqual(
        flaky.map((r) => [r.status, r.failure_kind, r.stdout.trim()]),
        Array.from({ length: 3 }, () => ['fail', 'infra_signal', 'started']),
      );
      assert.match(flaky[0].reason ?? '', /Killed by SIGKILL, which canopy did not send/);
      assert.deepEqual(
        runs.filter((r) => r.node_name !== 'flaky').map((r) => [r.node_name, r.status]),
        [['handler', 'pass']],
        'the fail edge is never taken',
      );
      const history = await (await h.ctx.temporal()).workflow.getHandle(loopWorkflowId(loopId)).fetchHistory();
      const waits = (history.events ?? []).flatMap((event) => {
        const timeout = event.timerStartedEventAttributes?.startToFireTimeout;
        return timeout ? [tsToMs(timeout) / 1000] : [];
      });
      assert.deepEqual(waits, [1, 2], 'the backoff timers');
    },
  );

  it('fails the loop with the infra kind when the node has no error edge, never taking its fail edge', SLOW, async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        settings: { infra_retries: 0 },
        nodes: [check('flaky', 1, KILLED), check('fixer', 2, 'echo fixing')],
        edges: [{ source: 'flaky', target: 'fixer', condition: 'fail' }],
      },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.deepEqual([result.status, result.failingNode, result.failureKind], ['failed', 'flaky', 'infra_signal']);
    assert.deepEqual(await attemptsOf(loopId, 'flaky'), [['fail', 'infra_signal']]);
    assert.deepEqual(await attemptsOf(loopId, 'fixer'), []);
  });

  it('tells an agent that cannot start and one that crashes at once from a work failure', SLOW, async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        settings: { infra_retries: 1, infra_backoff_seconds: 1 },
        nodes: [
          agent('unstartable', 1, 'work', { platform: 'missing_cli' }),
          agent('crashing', 2, 'work', { platform: 'silent_crash' }),
          agent('failing', 3, '@print tests fail\n@exit 1'),
          check('fixer', 4, 'echo fixing'),
        ],
        edges: [
          { source: 'unstartable', target: 'crashing', condition: 'error' },
          { source: 'crashing', target: 'failing', condition: 'error' },
          { source: 'failing', target: 'fixer', condition: 'fail' },
        ],
      },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed', result.reason ?? '');
    assert.deepEqual(await attemptsOf(loopId, 'unstartable'), [
      ['fail', 'infra_spawn'],
      ['fail', 'infra_spawn'],
    ]);
    assert.deepEqual(await attemptsOf(loopId, 'crashing'), [
      ['fail', 'infra_crash'],
      ['fail', 'infra_crash'],
    ]);
    assert.deepEqual(await attemptsOf(loopId, 'failing'), [['fail', 'exit_code']], 'a work failure is not retried');
    assert.deepEqual(await attemptsOf(loopId, 'fixer'), [['pass', null]]);
  });

  it('follows a check on through its run directory when the launcher dies under it: it runs once, to its end', SLOW, async () => {
    const workdir = scratchDir();
    const loopId = await loopWithSpecs(
      h.ctx,
      workdir,
      { nodes: [check('held', 1, 'echo run >> runs.txt; echo started; while [ ! -e release ]; do sleep 0.1; done; echo finished')] },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      await waitUntil('the check to start', async () => (await runsOf(h.ctx, loopId)).find((r) => r.pgid !== null));
      for (const pid of launcherPids()) process.kill(pid, 'SIGKILL');
      await waitUntil('the launcher to end', () => Promise.resolve(launcherPids().length === 0));
      writeFileSync(path.join(workdir, 'release'), '');
      return waitForLoopRun(h.ctx, loopId);
    });
    assert.equal(result.status, 'completed', result.reason ?? '');
    const runs = await runsOf(h.ctx, loopId);
    assert.deepEqual(
      runs.map((r) => [r.status, r.failure_kind, r.stdout, r.infra_attempt]),
      [['pass', null, 'started\nfinished\n', 1]],
    );
    assert.equal(readFileSync(path.join(workdir, 'runs.txt'), 'utf8'), 'run\n', 'the check ran once');
  });

  it(
    'labels a check whose supervisor died under it as lost, and numbers its retry as the workflow does: record, loop runs and activity summary',
    SLOW,
    async () => {
      const loopId = await loopWithSpecs(
        h.ctx,
        scratchDir(),
        {
          settings: { infra_retries: 1, infra_backoff_seconds: 1 },
          nodes: [check('flaky', 1, 'if [ -e attempted ]; then echo second; exit 0; fi; touch attempted; echo first; sleep 60')],
        },
        [{ name: 'spec' }],
      );
      const result = await h.withWorker(async () => {
        await startLoopRun(h.ctx, loopId);
        const first = await waitUntil('the check to print', async () => (await runsOf(h.ctx, loopId)).find((r) => r.stdout === 'first\n'));
        // Its supervisor leads the group: the pgid is the supervisor's pid.
        process.kill(first.pgid!, 'SIGKILL');
        return waitForLoopRun(h.ctx, loopId);
      });
      assert.equal(result.status, 'completed', result.reason ?? '');
      const runs = await runsOf(h.ctx, loopId);
      assert.deepEqual(
        runs.map((r) => [r.status, r.failure_kind, r.stdout, r.infra_attempt, r.activity_attempt]),
        [
          ['fail', 'infra_lost', 'first\n', 1, 1],
          ['pass', null, 'second\n', 2, 1],
        ],
      );
      assert.match(
        runs[0].reason ?? '',
        /^The process was lost while it ran: its supervisor \(pid \d+\) was killed by SIGKILL before it recorded the exit status/,
      );
      const keys = await h.ctx.db.selectFrom('node_runs').select(['id', 'run_key']).where('loop_id', '=', loopId).execute();
      const keyOf = (id: string) => keys.find((row) => row.id === id)?.run_key ?? '';
      assert.match(keyOf(runs[1].id), /:infra-2$/);

      const listed = await runCanopy(childEnv(h.config), 'loop', 'runs', loopId, '--json');
      assert.deepEqual(
        (JSON.parse(listed.stdout) as { runs: { infra_attempt: number }[] }).runs.map((r) => r.infra_attempt),
        [2, 1],
        'loop runs, newest first',
      );
      const history = await (await h.ctx.temporal()).workflow.getHandle(loopWorkflowId(loopId)).fetchHistory();
      const summaries = (history.events ?? [])
        .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runNode')
        .map((event) => defaultPayloadConverter.fromPayload<string>(event.userMetadata!.summary!));
      assert.deepEqual(summaries, ['flaky · spec "spec" · round 1', 'flaky · spec "spec" · round 1, infra attempt 2']);
    },
  );

  it('refuses an infra_retries out of range or not whole, naming the field, and changes nothing', async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('any', 1, 'true')] }, []);
    const refusals: [unknown, RegExp][] = [
      [11, /must be at most 10/],
      [-1, /must be at least 0/],
      [1.5, /must be a whole number/],
      ['two', /expected number/],
    ];
    for (const [value, message] of refusals) {
      await assertRefusedUnchanged(h.ctx, () => updateLoop(h.ctx, { loop_id: loopId, settings: { infra_retries: value as number } }), {
        code: 'invalid_input',
        field: 'settings.infra_retries',
        message,
      });
    }
    await updateLoop(h.ctx, { loop_id: loopId, settings: { infra_retries: 10 } });
    assert.deepEqual((await getLoop(h.ctx, loopId)).settings, { infra_retries: 10 });
  });
});
