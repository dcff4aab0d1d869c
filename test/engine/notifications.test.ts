// Notifications on the dev server, to real HTTP receivers on loopback: each event reaches the receivers
// that want it (config.json's and the loop's), in the json, slack and ntfy shapes; a receiver answering
// 500 is asked again until it takes the message; one that never answers or refuses holds nothing back,
// and its failure shows in `loop info` and `canopy doctor` with the URL's secret parts hidden.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideApproval } from '../../src/client/approvals-service';
import { diagnose } from '../../src/client/doctor-service';
import { loopStatus } from '../../src/client/loop-status-service';
import { resumeDeliveries } from '../../src/client/notifications-service';
import { startLoopRun, stopLoop, waitForLoopRun } from '../../src/client/runs-service';
import { notificationWorkflowId } from '../../src/contract';
import type { NotifyReceiver } from '../../src/domain/notify';
import type { Notification } from '../../src/notify/message';
import { insertNotifications } from '../../src/store/notifications-repository';
import { useEngineHarness, withConfigChanges, type EngineHarness } from '../helpers/engine';
import {
  agent,
  approval,
  chain,
  check,
  linked,
  loopWithSpecs,
  runsOf,
  scratchDir,
  spendWhileRunning,
  untilLoopStatus,
  type LoopShape,
} from '../helpers/loops';
import { startReceiver, type Receiver } from '../helpers/receivers';
import { waitUntil } from '../helpers/wait';

const SECRET = 's3cr3t-t0ken';

const eventsAt = (receiver: Receiver) => receiver.requests.map((request) => (JSON.parse(request.body) as Notification).event);

async function rowsOf(h: EngineHarness, loopId: string) {
  return h.ctx.db.selectFrom('notifications').selectAll().where('loop_id', '=', loopId).orderBy('created_at').execute();
}

describe('notifications', () => {
  const h = useEngineHarness();

  it('sends every event to the receivers that want it, in each shape, and asks one answering 500 again', { timeout: 180_000 }, async () => {
    const all = await startReceiver(`/all/${SECRET}`);
    const slack = await startReceiver('/services/T1/B2/x');
    const ntfy = await startReceiver('/my-topic');
    const flaky = await startReceiver('/flaky', [500, 500, 200]);
    const notify: NotifyReceiver[] = [
      { url: all.url },
      { url: slack.url, format: 'slack', events: ['approval_needed'] },
      { url: ntfy.url, format: 'ntfy', events: ['completed'] },
    ];
    const told = (shape: LoopShape, settings: Record<string, unknown> = {}) => ({ ...shape, settings: { notify, ...settings } });
    await withConfigChanges(h.config.home, { notify: [{ url: flaky.url, events: ['completed'] }] }, () =>
      h.withWorker(async () => {
        const approved = await loopWithSpecs(h.ctx, scratchDir(), told(linked(approval('review', 1), check('after', 2, 'echo done'))), [
          { name: 'parser' },
        ]);
        await startLoopRun(h.ctx, approved);
        await untilLoopStatus(h.ctx, approved, 'waiting');
        await decideApproval(h.ctx, { loop_id: approved, decision: 'approve', by: 'alice' });
        assert.equal((await waitForLoopRun(h.ctx, approved)).status, 'completed');

        const blocked = await loopWithSpecs(h.ctx, scratchDir(), told(linked(agent('stuck', 1, '@block which database?'))), [
          { name: 'db' },
        ]);
        await startLoopRun(h.ctx, blocked);
        await untilLoopStatus(h.ctx, blocked, 'blocked');
        await stopLoop(h.ctx, blocked);

        const failed = await loopWithSpecs(h.ctx, scratchDir(), told(chain(['broken', 'echo nope && exit 3'])), [{ name: 'x' }]);
        assert.equal((await startLoopRun(h.ctx, failed).then(() => waitForLoopRun(h.ctx, failed))).status, 'failed');

        const quiet = check('quiet', 1, 'sleep 60', { idle_timeout_minutes: 0.05 });
        const idle = await loopWithSpecs(h.ctx, scratchDir(), told(linked(quiet)), [{ name: 'y' }]);
        assert.equal((await startLoopRun(h.ctx, idle).then(() => waitForLoopRun(h.ctx, idle))).status, 'failed');

        const budget = told(chain(['spend', 'sleep 2'], ['next', 'true']), { budget_usd: 1 });
        const spent = await loopWithSpecs(h.ctx, scratchDir(), budget, [{ name: 'z' }]);
        await startLoopRun(h.ctx, spent);
        await spendWhileRunning(h.ctx, spent, 'spend', 2);
        await untilLoopStatus(h.ctx, spent, 'blocked');
        await stopLoop(h.ctx, spent);

        await waitUntil(
          'every message to arrive',
          () => Promise.resolve((all.requests.length >= 7 && flaky.requests.length >= 3) || undefined),
          60_000,
        );
      }),
    );

    assert.deepEqual(eventsAt(all).sort(), [
      'approval_needed',
      'blocked',
      'budget_exhausted',
      'completed',
      'failed',
      'failed',
      'idle_killed',
    ]);
    const byEvent = (event: string) =>
      all.requests.map((r) => JSON.parse(r.body) as Notification & { title: string }).find((n) => n.event === event)!;
    const needed = byEvent('approval_needed');
    assert.equal(needed.title, 'Loop engine test waits for your approval at review (spec parser)');
    assert.match(needed.command, /^canopy approve loop_\w+ --node review {2}\| {2}canopy reject/);
    assert.match(needed.reason ?? '', /^Spec parser, round 1\./);
    assert.equal(byEvent('blocked').reason, 'which database?');
    assert.equal(byEvent('blocked').node, 'stuck');
    assert.match(byEvent('idle_killed').reason ?? '', /Printed nothing for idle_timeout_minutes \(0\.05\); killed/);
    assert.match(byEvent('budget_exhausted').reason ?? '', /^budget_exhausted: this run spent \$2\.00 of budget_usd \$1/);
    assert.ok(all.requests.every((r) => r.path === `/all/${SECRET}` && r.headers['content-type'] === 'application/json'));

    assert.equal(slack.requests.length, 1, 'slack wants approval_needed alone');
    const slackBody = JSON.parse(slack.requests[0].body) as { text: string; blocks: unknown[] };
    assert.match(slackBody.text, /^Loop engine test waits for your approval at review/);
    assert.ok(slackBody.blocks.length >= 3);

    assert.equal(ntfy.requests.length, 1, 'ntfy wants completed alone');
    assert.equal(ntfy.requests[0].headers.title, 'Loop engine test completed');
    assert.equal(ntfy.requests[0].headers.tags, 'white_check_mark');
    assert.match(ntfy.requests[0].body, /^Act: canopy loop info loop_/);

    assert.equal(flaky.requests.length, 3, "config.json's receiver answered 500 twice, then took it");
    assert.ok(flaky.requests[1].at - flaky.requests[0].at >= 4_000, 'asked again after a backoff');
    const [flakyRow] = (await rowsOf(h, (JSON.parse(flaky.requests[0].body) as Notification).loop.id)).filter(
      (row) => row.receiver === 'config.0',
    );
    assert.deepEqual(
      [flakyRow.status, flakyRow.attempts, flakyRow.last_error],
      ['delivered', 3, 'the receiver answered 500 Internal Server Error'],
    );
  });

  it(
    'holds nothing back for a receiver that never answers, gives up on one that refuses, and says so with the URL hidden',
    { timeout: 120_000 },
    async () => {
      const silent = await startReceiver(`/hang/${SECRET}`, ['never']);
      const refusing = await startReceiver(`/gone?token=${SECRET}`, [404]);
      const notify: NotifyReceiver[] = [
        { url: silent.url, events: ['approval_needed'] },
        { url: refusing.url, events: ['completed'] },
      ];
      const shape = {
        ...linked(check('first', 1, 'true'), approval('review', 2), check('second', 3, 'echo second')),
        settings: { notify },
      };
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), shape, [{ name: 'spec' }]);
      await withConfigChanges(h.config.home, { notify: [{ url: refusing.url, events: ['failed'] }] }, () =>
        h.withWorker(async () => {
          await startLoopRun(h.ctx, loopId);
          await untilLoopStatus(h.ctx, loopId, 'waiting');
          await waitUntil('the silent receiver to be asked', () => Promise.resolve(silent.requests.length === 1 || undefined));
          await decideApproval(h.ctx, { loop_id: loopId, decision: 'approve', by: 'alice' });
          assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
          const second = (await runsOf(h.ctx, loopId)).find((run) => run.node_name === 'second')!;
          assert.ok(
            Date.parse(second.started_at) < silent.requests[0].at + 10_000,
            'the next node ran while the silent receiver still held its request',
          );
          await waitUntil('the refusing receiver to be given up', async () =>
            (await rowsOf(h, loopId)).find((row) => row.receiver === 'loop.1' && row.status === 'failed'),
          );
          const [asked, given] = await rowsOf(h, loopId);
          assert.deepEqual([given.attempts, given.last_error], [1, 'the receiver answered 404 Not Found'], 'a refusal is not asked again');
          await waitUntil('the silent attempt to time out', async () => (await rowsOf(h, loopId))[0].last_error !== null, 40_000);
          assert.equal((await rowsOf(h, loopId))[0].last_error, 'the receiver did not answer within 10 s');
          assert.equal(asked.receiver, 'loop.0');

          const info = await loopStatus(h.ctx, loopId);
          assert.equal(info.notify_failure?.event, 'approval_needed');
          assert.equal(info.notify_failure?.url, `${new URL(silent.url).origin}/[REDACTED]`);
          assert.equal(info.notify_failure?.given_up, false, 'a receiver that timed out is tried again');
          const report = await diagnose(h.config);
          assert.deepEqual(report.notify.receivers, [
            { url: `${new URL(refusing.url).origin}/[REDACTED]`, format: 'json', events: ['failed'] },
          ]);
          assert.equal(report.notify.last_failure?.loop_id, loopId);
          for (const shown of [info, report]) assert.ok(!JSON.stringify(shown).includes(SECRET), 'the token is never shown');

          const client = await h.ctx.temporal();
          const history = await client.workflow.getHandle(notificationWorkflowId(given.id)).fetchHistory();
          const decoded = JSON.stringify(JSON.parse(JSON.stringify(history)), (key, value: unknown) =>
            key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value,
          );
          assert.match(decoded, /\\"notificationId\\":\\"ntf_/, 'the payloads are read as text');
          assert.ok(!decoded.includes(SECRET), "the token is not in Temporal's history");
        }),
      );
    },
  );

  it('sends, at a worker’s start, a message whose delivery never started', { timeout: 60_000 }, async () => {
    const receiver = await startReceiver('/late');
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), chain(['only', 'true']), []);
    const message: Notification = {
      event: 'completed',
      loop: { id: loopId, name: 'engine test', workdir: '/w' },
      spec: null,
      node: null,
      reason: null,
      command: `canopy loop info ${loopId}`,
      temporal_ui_url: null,
      at: new Date().toISOString(),
    };
    const [id] = await insertNotifications(h.ctx.db, [
      { occurrence: 'lost-start', receiver: 'loop.0', url: receiver.url, format: 'json', message },
    ]);
    await h.withWorker(async () => {
      assert.ok((await resumeDeliveries(h.ctx)).includes(id));
      await waitUntil('the message to be delivered', async () =>
        (await rowsOf(h, loopId)).find((row) => row.id === id && row.status === 'delivered'),
      );
      assert.ok(!(await resumeDeliveries(h.ctx)).includes(id), 'a delivered message is not sent again');
    });
    assert.equal(receiver.requests.length, 1);
    assert.equal((JSON.parse(receiver.requests[0].body) as Notification).command, `canopy loop info ${loopId}`);
  });
});
