// Feedback into a running loop on the dev server: remarks queued while the loop waits survive its
// worker, reach the next agent run once (under a heading, or in place of {{human_feedback}}), are
// kept on the node run that received them, and are refused, queuing nothing, where no run is open.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { decideApproval } from '../../src/client/approvals-service';
import { sendFeedback } from '../../src/client/feedback-service';
import { loopStatus } from '../../src/client/loop-status-service';
import { liveState, startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { FEEDBACK_HEADING } from '../../src/graph/templates';
import { useEngineHarness } from '../helpers/engine';
import { agent, approval, check, linked, loopWithSpecs, runsOf, scratchDir, untilLoopStatus } from '../helpers/loops';
import { assertRefused, assertRefusedUnchanged } from '../helpers/store';
import { waitUntil } from '../helpers/wait';

const QUICK = { timeout: 120_000 };

describe('feedback into a running loop', () => {
  const h = useEngineHarness();

  it('reaches the next agent run once, across a worker restart, and is refused where no run is open', QUICK, async () => {
    const workdir = scratchDir();
    const gate = path.join(workdir, 'gate');
    const loopId = await loopWithSpecs(
      h.ctx,
      workdir,
      linked(
        approval('hold', 1),
        check('lint', 2, 'echo linted'),
        agent('implement', 3, `@wait-for ${gate}\n@print implemented`),
        agent('polish', 4, '@print polished\nRemarks: {{human_feedback}}.'),
        agent('wrap-up', 5, '@print wrapped'),
      ),
      [{ name: 'feature' }],
    );
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      await untilLoopStatus(h.ctx, loopId, 'waiting');
      await waitUntil('the run to wait', async () => (await liveState(h.ctx, loopId))?.status === 'waiting');
      assert.deepEqual(await sendFeedback(h.ctx, { loop_id: loopId, message: 'use the v2 API', by: 'alice' }), {
        loop_id: loopId,
        by: 'alice',
        queued: 1,
      });
      assert.equal((await sendFeedback(h.ctx, { loop_id: loopId, message: '  and keep it short ', by: 'bob' })).queued, 2);
      await assertRefusedUnchanged(h.ctx, () => sendFeedback(h.ctx, { loop_id: loopId, message: '  ', by: 'alice' }), {
        code: 'invalid_input',
        field: 'message',
        message: /must not be empty/,
      });
      await assertRefused(sendFeedback(h.ctx, { loop_id: 'loop_nope', message: 'hi', by: 'alice' }), { code: 'not_found' });
    });

    // A new worker replays the run: the queued remarks are in its history, not in the old worker's memory.
    await h.withWorker(async () => {
      assert.equal((await loopStatus(h.ctx, loopId)).live?.queuedFeedback, 2);
      await decideApproval(h.ctx, { loop_id: loopId, decision: 'approve', by: 'carol' });
      const implement = await waitUntil('implement to start', async () =>
        (await runsOf(h.ctx, loopId)).find((run) => run.node_name === 'implement' && run.input !== ''),
      );
      assert.deepEqual(
        implement.human_feedback?.map(({ message, by }) => [message, by]),
        [
          ['use the v2 API', 'alice'],
          ['and keep it short', 'bob'],
        ],
      );
      assert.ok(implement.input.endsWith(`\n\n${FEEDBACK_HEADING}\n\nuse the v2 API\n\nand keep it short\n`), implement.input);
      assert.equal((await loopStatus(h.ctx, loopId)).live?.queuedFeedback, 0, 'given once: none waits any more');

      await sendFeedback(h.ctx, { loop_id: loopId, message: 'rename the flag', by: 'dan' });
      writeFileSync(gate, '');
      const result = await waitForLoopRun(h.ctx, loopId);
      assert.equal(result.status, 'completed');
    });

    const runs = await runsOf(h.ctx, loopId);
    const byNode = (name: string) => runs.find((run) => run.node_name === name)!;
    assert.equal(byNode('lint').human_feedback, null, 'a check is no agent run: the remarks wait past it');
    assert.equal(byNode('polish').input, '@print polished\nRemarks: rename the flag.', 'in place of the placeholder, with no heading');
    assert.deepEqual(
      byNode('polish').human_feedback?.map((remark) => remark.by),
      ['dan'],
    );
    assert.equal(byNode('wrap-up').human_feedback, null, 'each remark is given once');
    assert.ok(!byNode('wrap-up').input.includes(FEEDBACK_HEADING));

    await assertRefusedUnchanged(h.ctx, () => sendFeedback(h.ctx, { loop_id: loopId, message: 'too late', by: 'alice' }), {
      code: 'refused',
      message: /is completed and has no open run/,
    });
  });
});
