// approval_list, approval_decide and loop_feedback through `canopy mcp` and the SDK's client, on the run's dev server.
import assert from 'node:assert/strict';
import os from 'node:os';
import { describe, it } from 'node:test';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { useEngineHarness } from '../helpers/engine';
import { approval, check, linked, loopWithSpecs, runsOf, scratchDir, untilLoopStatus } from '../helpers/loops';
import { callOk, callRefused, useMcpSession } from '../helpers/mcp-client';

describe(
  'approvals and feedback over MCP',
  { skip: !process.env.CANOPY_TEST_TEMPORAL_ADDRESS && 'needs the dev server `npm test` starts' },
  () => {
    const h = useEngineHarness();
    const session = useMcpSession(h);

    it(
      'lists the waiting approval, refuses a rejection without a comment, and approves it as the local user',
      { timeout: 120_000 },
      async () => {
        const loopId = await loopWithSpecs(h.ctx, scratchDir(), linked(approval('review', 1), check('after', 2, 'echo after')), [
          { name: 'spec' },
        ]);
        await h.withWorker(async () => {
          await startLoopRun(h.ctx, loopId);
          await untilLoopStatus(h.ctx, loopId, 'waiting');
          const listed = (await callOk(session.client, 'approval_list')).approvals as { loop_id: string; node: string; message: string }[];
          const mine = listed.filter((item) => item.loop_id === loopId);
          assert.deepEqual(
            mine.map((item) => [item.node, item.message.split('\n')[0]]),
            [['review', 'Spec spec, round 1. Changed:']],
          );
          assert.match(
            await callRefused(session.client, 'approval_decide', { loop_id: loopId, decision: 'reject' }),
            /- comment: a rejection needs a comment/,
          );
          assert.match(await callRefused(session.client, 'approval_decide', { loop_id: loopId, decision: 'maybe' }), /decision/);
          assert.deepEqual(await callOk(session.client, 'loop_feedback', { loop_id: loopId, message: 'keep the old flag' }), {
            loop_id: loopId,
            by: `${os.userInfo().username} (mcp)`,
            queued: 1,
          });
          assert.match(
            await callRefused(session.client, 'loop_feedback', { loop_id: loopId, message: '' }),
            /- message: must not be empty/,
          );
          const decided = await callOk(session.client, 'approval_decide', { loop_id: loopId, node: 'review', decision: 'approve' });
          assert.deepEqual(decided, {
            loop_id: loopId,
            node: 'review',
            decision: 'approve',
            by: `${os.userInfo().username} (mcp)`,
            comment: null,
          });
          assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
          assert.match(
            await callRefused(session.client, 'approval_decide', { loop_id: loopId, decision: 'approve' }),
            /waits at no approval/,
          );
          assert.match(await callRefused(session.client, 'loop_feedback', { loop_id: loopId, message: 'late' }), /has no open run/);
        });
        assert.equal(
          (await runsOf(h.ctx, loopId)).find((run) => run.node_name === 'review')?.decided_by,
          `${os.userInfo().username} (mcp)`,
        );
      },
    );
  },
);
