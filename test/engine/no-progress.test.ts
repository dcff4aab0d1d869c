// The no-progress watchdog on the dev server, in real git repositories: a fix loop whose agent changes
// nothing while its check fails the same way blocks with no_progress after max_stalled_rounds rounds,
// telling the receivers that want it; a continue starts the count again. An agent that changes the
// tree, or a check whose output differs each round, never trips it.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loopStatus } from '../../src/client/loop-status-service';
import { listRunPage } from '../../src/client/node-runs-service';
import { continueLoop, pauseLoop, startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { describeStatus } from '../../src/cli/text/loop-status';
import type { Notification } from '../../src/notify/message';
import { useEngineHarness, type EngineHarness } from '../helpers/engine';
import { tempGitRepo } from '../helpers/git';
import { checkedFix, FAILS_UNTIL_FIXED, loopWithSpecs, runsOf, runToEnd, untilLoopStatus } from '../helpers/loops';
import { callOk, useMcpSession } from '../helpers/mcp-client';
import { startReceiver } from '../helpers/receivers';
import { waitUntil } from '../helpers/wait';

const NOTHING_CHANGED = '@print nothing to change';

/** How many times the loop's `tests` has ended. */
async function testsEnded(h: EngineHarness, loopId: string): Promise<number> {
  return (await runsOf(h.ctx, loopId)).filter((run) => run.node_name === 'tests' && run.ended_at).length;
}

/** Waits until the loop is blocked again after `tests` ended `count` times in all. */
async function blockedAfter(h: EngineHarness, loopId: string, count: number) {
  return waitUntil(`the loop to block after ${count} runs of tests`, async () => {
    const status = await loopStatus(h.ctx, loopId);
    // The run says it is blocked a moment before the loop's record does.
    const both = status.live?.status === 'blocked' && status.status === 'blocked';
    return both && (await testsEnded(h, loopId)) === count ? status : undefined;
  });
}

describe('the no-progress watchdog', () => {
  const h = useEngineHarness();
  const session = useMcpSession(h);

  it('blocks a loop whose rounds change nothing and fail the same way, tells no_progress, and a continue counts afresh', async () => {
    const receiver = await startReceiver('/watchdog');
    const workdir = tempGitRepo();
    // The head's own limit wins over the loop's.
    const settings = {
      max_stalled_rounds: 50,
      max_iterations: 20,
      notify: [{ url: receiver.url, events: ['no_progress' as const, 'blocked' as const] }],
    };
    const shape = checkedFix(NOTHING_CHANGED, FAILS_UNTIL_FIXED, settings, { max_stalled_rounds: 2 });
    const loopId = await loopWithSpecs(h.ctx, workdir, shape, [{ name: 'parser' }]);
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      const blocked = await blockedAfter(h, loopId, 2);
      const reason = blocked.live?.blockedReason ?? '';
      assert.match(
        reason,
        /^no_progress: 2 rounds in a row of the loop headed by 'fixer' ended with the workdir unchanged and tests failing with the same output: FAIL: fixed\.txt is missing\. /,
      );
      assert.equal(blocked.status, 'blocked');
      assert.ok(describeStatus(blocked).includes(`blocked  ${reason}`), 'loop info says why');
      assert.equal(blocked.picture.blocked, reason, 'loop watch and the TUI draw it');
      assert.equal((await listRunPage(h.ctx, { loop_id: loopId })).blocked, reason, '`loop runs` begins with it');
      const viaMcp = await callOk(session.client, 'loop_info', { loop_id: loopId });
      assert.equal(viaMcp.live.blockedReason, reason);
      assert.equal((await callOk(session.client, 'loop_node_runs_list', { loop_id: loopId })).blocked, reason);
      assert.deepEqual(
        (await runsOf(h.ctx, loopId)).map((run) => `${run.node_name}:${run.round}:${run.outcome}`),
        ['fixer:1:pass', 'tests:1:fail', 'fixer:2:pass', 'tests:2:fail'],
        'the loop blocked at the end of round 2, before a third',
      );

      const told = await waitUntil('the no_progress notification', () =>
        Promise.resolve(receiver.requests.length ? receiver.requests : undefined),
      );
      const message = JSON.parse(told[0].body) as Notification;
      assert.deepEqual([message.event, message.node, message.spec?.name, message.reason], ['no_progress', 'tests', 'parser', reason]);
      assert.equal(message.command, `canopy loop continue ${loopId} [--strategy skip]`);

      // The count starts again: two more rounds alike, not one, block it again.
      await continueLoop(h.ctx, loopId, 'retry');
      const again = await blockedAfter(h, loopId, 4);
      assert.match(again.live?.blockedReason ?? '', /^no_progress: 2 rounds in a row /);
      await waitUntil('the second notification', () => Promise.resolve(receiver.requests.length === 2 || undefined));

      // A skip goes on too; the fix lands and the loop completes.
      writeFileSync(path.join(workdir, 'fixed.txt'), 'done\n');
      await continueLoop(h.ctx, loopId, 'skip');
      const result = await waitForLoopRun(h.ctx, loopId);
      assert.equal(result.status, 'completed', result.reason ?? '');
    });
    assert.deepEqual(
      receiver.requests.map((request) => (JSON.parse(request.body) as Notification).event),
      ['no_progress', 'no_progress'],
      'each block is told once, as no_progress, and not also as blocked',
    );
  });

  it('does not block while the agent changes the tree, though the check fails the same way', async () => {
    const shape = checkedFix("@write notes.txt round {{round}}'s attempt", FAILS_UNTIL_FIXED, { max_stalled_rounds: 2, max_iterations: 4 });
    const loopId = await loopWithSpecs(h.ctx, tempGitRepo(), shape, [{ name: 'spec' }]);
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    // A block would have held the run until a continue; it ran out of rounds instead.
    assert.equal(result.failureKind, 'iteration_limit', result.reason ?? '');
    assert.equal(await testsEnded(h, loopId), 4);
  });

  it('does not block when the check fails with other output each round', async () => {
    const differing = 'echo "FAIL at $(date +%s%N)"; exit 1';
    const loopId = await loopWithSpecs(
      h.ctx,
      tempGitRepo(),
      checkedFix(NOTHING_CHANGED, differing, { max_stalled_rounds: 2, max_iterations: 4 }),
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.failureKind, 'iteration_limit', result.reason ?? '');
    assert.equal(await testsEnded(h, loopId), 4);
  });

  it('keeps its count across a worker restart', async () => {
    const workdir = tempGitRepo();
    const shape = checkedFix(NOTHING_CHANGED, FAILS_UNTIL_FIXED, { max_stalled_rounds: 3, max_iterations: 10 });
    const loopId = await loopWithSpecs(h.ctx, workdir, shape, [{ name: 'spec' }]);
    // Two rounds counted, then the run pauses at its next checkpoint and its worker goes away.
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      await waitUntil('two rounds to end', async () => (await testsEnded(h, loopId)) >= 2 || undefined);
      await pauseLoop(h.ctx, loopId);
      await untilLoopStatus(h.ctx, loopId, 'paused');
    });
    // A new worker rebuilds the run from its history, count and all: the third round alike blocks it.
    await h.withWorker(async () => {
      await continueLoop(h.ctx, loopId, 'retry');
      const blocked = await blockedAfter(h, loopId, 3);
      assert.match(blocked.live?.blockedReason ?? '', /^no_progress: 3 rounds in a row /);
      writeFileSync(path.join(workdir, 'fixed.txt'), 'done\n');
      await continueLoop(h.ctx, loopId, 'retry');
      assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    });
  });
});
