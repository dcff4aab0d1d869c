// Approval nodes on the dev server: the walk stops with the loop waiting and nothing running, shows
// in the inbox with its rendered message, and goes on as a person (or the timeout) decides.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { decideApproval, listInbox } from '../../src/client/approvals-service';
import { loopStatus } from '../../src/client/loop-status-service';
import { liveState, startLoopRun, stopLoop, waitForLoopRun } from '../../src/client/runs-service';
import { loopWorkflowId } from '../../src/contract';
import { getLoop } from '../../src/store/loops-repository';
import { useEngineHarness, type EngineHarness } from '../helpers/engine';
import { tempGitRepo } from '../helpers/git';
import { approval, check, linked, loopWithSpecs, runsOf, scratchDir, untilLoopStatus } from '../helpers/loops';
import { assertRefused, assertRefusedUnchanged } from '../helpers/store';
import { waitUntil } from '../helpers/wait';

const QUICK = { timeout: 120_000 };

async function pendingActivities(h: EngineHarness, loopId: string): Promise<number> {
  const client = await h.ctx.temporal();
  const description = await client.workflow.getHandle(loopWorkflowId(loopId)).describe();
  return description.raw.pendingActivities?.length ?? 0;
}

const inboxOf = async (h: EngineHarness, loopId: string) => (await listInbox(h.ctx)).filter((item) => item.loop_id === loopId);

const runsOfNode = async (h: EngineHarness, loopId: string, node: string) =>
  (await runsOf(h.ctx, loopId)).filter((run) => run.node_name === node);

describe('approval nodes', () => {
  const h = useEngineHarness();

  it('waits with the loop waiting and nothing running, in the inbox with its message, and goes on when approved', QUICK, async () => {
    const workdir = tempGitRepo();
    const shape = linked(
      check('implement', 1, 'echo new > feature.txt && echo implemented'),
      approval('review', 2),
      check('commit', 3, 'echo committed'),
    );
    const loopId = await loopWithSpecs(h.ctx, workdir, shape, [{ name: 'feature' }]);
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      await untilLoopStatus(h.ctx, loopId, 'waiting');
      // The store says waiting as the open's activity ends; the run waits once it has taken that activity's result.
      await waitUntil('the run to wait', async () => (await liveState(h.ctx, loopId))?.status === 'waiting');
      assert.equal(await pendingActivities(h, loopId), 0, 'no activity runs while the approval waits');
      const [item, ...others] = await inboxOf(h, loopId);
      assert.deepEqual(others, []);
      assert.equal(item.loop_id, loopId);
      assert.equal(item.node, 'review');
      assert.equal(item.spec_name, 'feature');
      assert.equal(item.deadline, null);
      assert.match(item.message, /^Spec feature, round 1\. Changed:\n feature\.txt \| 1 \+\n 1 file changed/);
      const [waiting] = await runsOfNode(h, loopId, 'review');
      assert.equal(waiting.status, 'waiting');
      const info = await loopStatus(h.ctx, loopId);
      assert.equal(info.status, 'waiting');
      assert.deepEqual(info.live?.approval && { node: info.live.approval.node, deadline: info.live.approval.deadline }, {
        node: 'review',
        deadline: null,
      });
      const states = Object.fromEntries(info.picture.vertices.map((vertex) => [vertex.name, vertex.state]));
      assert.deepEqual(states, { implement: 'pass', review: 'waiting', commit: 'pending' }, 'the approval shows as waiting, not running');

      await assertRefusedUnchanged(
        h.ctx,
        () => decideApproval(h.ctx, { loop_id: loopId, node: 'commit', decision: 'approve', by: 'alice' }),
        {
          code: 'refused',
          message: /waits at approval 'review', not at 'commit'/,
        },
      );
      await assertRefusedUnchanged(h.ctx, () => decideApproval(h.ctx, { loop_id: loopId, decision: 'reject', by: 'alice' }), {
        code: 'invalid_input',
        field: 'comment',
        message: /a rejection needs a comment/,
      });

      const decided = await Promise.allSettled([
        decideApproval(h.ctx, { loop_id: loopId, decision: 'approve', comment: 'ship it', by: 'alice' }),
        decideApproval(h.ctx, { loop_id: loopId, decision: 'reject', comment: 'no', by: 'bob' }),
      ]);
      const accepted = decided.filter((result) => result.status === 'fulfilled');
      assert.equal(accepted.length, 1, 'one of two decisions at once is taken');
      const refused = decided.find((result) => result.status === 'rejected');
      assert.match(
        String(refused?.reason),
        /refused the decision: .*(already (approved|rejected)|waits at no approval)|waits at no approval|has no open run to take the decision/,
      );

      const result = await waitForLoopRun(h.ctx, loopId);
      const review = (await runsOfNode(h, loopId, 'review'))[0];
      const winner = (accepted[0] as PromiseFulfilledResult<{ decision: string; by: string }>).value;
      if (winner.decision === 'approve') {
        assert.equal(result.status, 'completed');
        assert.deepEqual([review.status, review.decided_by, review.reason], ['pass', 'alice', 'approved by alice: ship it']);
        assert.equal((await runsOfNode(h, loopId, 'commit'))[0].stdout, 'committed\n');
      } else {
        assert.deepEqual([result.status, review.status, review.decided_by, review.stdout], ['failed', 'fail', 'bob', 'no']);
      }
      assert.ok(review.decided_at, 'the decision time is on the node run');
      assert.deepEqual(await inboxOf(h, loopId), []);
    });
    await assertRefused(decideApproval(h.ctx, { loop_id: loopId, decision: 'approve', by: 'alice' }), {
      code: 'refused',
      message: /waits at no approval/,
    });
  });

  it(
    "rejected, fails with the comment as its output, which the next node's previous_feedback holds; rounds count in a loop body",
    QUICK,
    async () => {
      const loopId = await loopWithSpecs(
        h.ctx,
        scratchDir(),
        {
          nodes: [
            check('implement', 1, 'echo implemented round {{round}}', { max_iterations: 3 }),
            approval('review', 2),
            check('notice', 3, 'echo "{{previous_feedback}}"'),
          ],
          edges: [
            { source: 'implement', target: 'review' },
            { source: 'review', target: 'notice', condition: 'fail' },
            { source: 'notice', target: 'implement', type: 'loopback' },
          ],
        },
        [{ name: 'spec' }],
      );
      await h.withWorker(async () => {
        await startLoopRun(h.ctx, loopId);
        await untilLoopStatus(h.ctx, loopId, 'waiting');
        assert.match((await inboxOf(h, loopId))[0].message, /round 1\. Changed:\n\(the workdir is not a git repository/);
        await decideApproval(h.ctx, { loop_id: loopId, decision: 'reject', comment: 'the tests are missing', by: 'carol' });
        await waitForRound(h, loopId, 2);
        await decideApproval(h.ctx, { loop_id: loopId, decision: 'approve', by: 'carol' });
        assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
      });
      const reviews = await runsOfNode(h, loopId, 'review');
      assert.deepEqual(
        reviews.map((run) => [run.round, run.status, run.failure_kind, run.stdout]),
        [
          [1, 'fail', 'rejected', 'the tests are missing'],
          [2, 'pass', null, 'implemented round 2\n'],
        ],
        'rejected, the comment is the output; approved, the upstream output is passed on',
      );
      const [notice] = await runsOfNode(h, loopId, 'notice');
      const feedback = JSON.parse(notice.stdout) as { node: string; outcome: string; failure_kind: string; reason: string; output: string };
      assert.deepEqual(feedback, {
        node: 'review',
        outcome: 'fail',
        failure_kind: 'rejected',
        reason: 'rejected by carol: the tests are missing',
        output: 'the tests are missing',
      });
    },
  );

  it("waits in a sandboxed run, its {{changes}} those of the run's worktree", QUICK, async () => {
    const workdir = tempGitRepo();
    const shape = linked(check('implement', 1, 'echo sandboxed > sandboxed.txt'), approval('review', 2));
    const loopId = await loopWithSpecs(h.ctx, workdir, shape, [{ name: 'feature' }]);
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId, { sandbox: true });
      await untilLoopStatus(h.ctx, loopId, 'waiting');
      assert.match((await inboxOf(h, loopId))[0].message, /Changed:\n sandboxed\.txt \| 1 \+/);
      await decideApproval(h.ctx, { loop_id: loopId, decision: 'approve', by: 'frank' });
      assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    });
    assert.ok(!existsSync(path.join(workdir, 'sandboxed.txt')), 'the workdir itself was not touched');
  });

  it('decides by itself at its timeout as on_timeout says, recorded as decided by timeout', QUICK, async () => {
    const approving = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      linked(approval('review', 1, { timeout_minutes: 0.02, on_timeout: 'approve' }), check('after', 2, 'echo after')),
      [{ name: 'spec' }],
    );
    const rejecting = await loopWithSpecs(h.ctx, scratchDir(), linked(approval('review', 1, { timeout_minutes: 0.02 })), [
      { name: 'spec' },
    ]);
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, approving);
      await startLoopRun(h.ctx, rejecting);
      assert.equal((await waitForLoopRun(h.ctx, approving)).status, 'completed');
      const failed = await waitForLoopRun(h.ctx, rejecting);
      assert.deepEqual([failed.status, failed.failingNode, failed.failureKind], ['failed', 'review', 'rejected']);
    });
    const [approved] = await runsOfNode(h, approving, 'review');
    assert.deepEqual([approved.status, approved.decided_by], ['pass', 'timeout']);
    assert.ok(approved.deadline, 'the deadline was on the node run');
    const [rejected] = await runsOfNode(h, rejecting, 'review');
    assert.deepEqual(
      [rejected.status, rejected.decided_by, rejected.reason],
      ['fail', 'timeout', 'not decided before its deadline, so its on_timeout rejected it'],
    );
  });

  it('waits on across a worker that stopped, is decided on the next, and a stopped loop leaves no approval waiting', QUICK, async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), linked(approval('review', 1), check('after', 2, 'echo after')), [
      { name: 'one' },
    ]);
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      await untilLoopStatus(h.ctx, loopId, 'waiting');
    });
    assert.equal((await getLoop(h.ctx.db, loopId))?.status, 'waiting');
    await h.withWorker(async () => {
      await decideApproval(h.ctx, { loop_id: loopId, decision: 'approve', by: 'dave' });
      assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    });

    const stopped = await loopWithSpecs(h.ctx, scratchDir(), linked(approval('review', 1)), [{ name: 'one' }]);
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, stopped);
      await untilLoopStatus(h.ctx, stopped, 'waiting');
      await stopLoop(h.ctx, stopped);
    });
    const [review] = await runsOfNode(h, stopped, 'review');
    assert.equal(review.status, 'cancelled');
    assert.deepEqual(await inboxOf(h, stopped), []);
  });
});

async function waitForRound(h: EngineHarness, loopId: string, round: number): Promise<void> {
  await untilLoopStatus(h.ctx, loopId, 'waiting');
  await waitUntil(`approval round ${round}`, async () => (await inboxOf(h, loopId)).some((item) => item.round === round));
}
