// `canopy inbox`, `canopy approve` and `canopy reject` as child processes, on the run's dev server: a loop
// implement → approval → commit waits, shows in the inbox, and goes on when a person decides.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitForLoopRun, startLoopRun } from '../../src/client/runs-service';
import { childEnv, useEngineHarness } from '../helpers/engine';
import { tempGitRepo } from '../helpers/git';
import { approval, check, linked, loopWithSpecs, runsOf, untilLoopStatus } from '../helpers/loops';
import { canopySync, runCanopy } from '../helpers/processes';

describe(
  'canopy inbox, approve and reject',
  { skip: !process.env.CANOPY_TEST_TEMPORAL_ADDRESS && 'needs the dev server `npm test` starts' },
  () => {
    const h = useEngineHarness();
    const canopy = (...args: string[]) => canopySync(childEnv(h.config), args);
    const shape = () =>
      linked(
        check('implement', 1, 'echo code > parser.txt && echo implemented'),
        approval('review', 2),
        check('commit', 3, 'echo "{{previous_output}}"'),
      );

    it(
      'lists a waiting approval with its message, refuses bad decisions by name, and approves it from the command line',
      { timeout: 120_000 },
      async () => {
        const loopId = await loopWithSpecs(h.ctx, tempGitRepo(), shape(), [{ name: 'parser' }]);
        await h.withWorker(async () => {
          await startLoopRun(h.ctx, loopId);
          await untilLoopStatus(h.ctx, loopId, 'waiting');
          // The in-process worker answers the update and queries, so these children must not block the event loop.
          const inbox = await runCanopy(childEnv(h.config), 'inbox', '--json');
          assert.equal(inbox.status, 0, inbox.stderr);
          const [item] = (JSON.parse(inbox.stdout) as { loop_id: string; node: string; message: string; decide: string }[]).filter(
            (entry) => entry.loop_id === loopId,
          );
          assert.equal(item.node, 'review');
          assert.match(item.message, /Spec parser, round 1\. Changed:\n parser\.txt \| 1 \+/);
          assert.equal(item.decide, `canopy approve ${loopId} --node review`);
          const text = await runCanopy(childEnv(h.config), 'inbox');
          assert.match(text.stdout, new RegExp(`engine test \\(${loopId}\\) · review · spec parser · round 1\\n`));
          const info = await runCanopy(childEnv(h.config), 'loop', 'info', loopId);
          assert.match(
            info.stdout,
            new RegExp(`^waiting  approval review: canopy approve ${loopId} \\| canopy reject ${loopId} --comment`, 'm'),
          );

          const noComment = canopy('reject', loopId);
          assert.notEqual(noComment.status, 0);
          assert.match(noComment.stderr, /required option '--comment <text>' not specified/);
          const wrongNode = await runCanopy(childEnv(h.config), 'approve', loopId, '--node', 'commit');
          assert.equal(wrongNode.status, 2);
          assert.match(wrongNode.stderr, /waits at approval 'review', not at 'commit'/);

          const remark = await runCanopy(
            childEnv(h.config),
            'loop',
            'feedback',
            loopId,
            '--message',
            'mind the edge cases',
            '--by',
            'erin',
          );
          assert.equal(remark.status, 0, remark.stderr);
          assert.equal(remark.stdout.trim(), `Remark from erin queued for loop ${loopId}: it waits for its next agent run.`);
          const emptyRemark = await runCanopy(childEnv(h.config), 'loop', 'feedback', loopId, '--message', ' ');
          assert.equal(emptyRemark.status, 2);
          assert.match(emptyRemark.stderr, /message: must not be empty/);
          assert.match(
            (await runCanopy(childEnv(h.config), 'loop', 'info', loopId)).stdout,
            /^feedback a remark waits for the next agent run$/m,
          );

          const approved = await runCanopy(childEnv(h.config), 'approve', loopId, '--by', 'erin', '--comment', 'looks right');
          assert.equal(approved.status, 0, approved.stderr);
          assert.equal(approved.stdout.trim(), `Approval 'review' of loop ${loopId} approved by erin; the loop goes on.`);
          assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
          const late = canopy('loop', 'feedback', loopId, '--message', 'too late');
          assert.equal(late.status, 2);
          assert.match(late.stderr, /is completed and has no open run; a remark goes to a running loop's next agent run/);
          const again = canopy('approve', loopId);
          assert.equal(again.status, 2);
          assert.match(again.stderr, /is completed and waits at no approval/);
        });
        const review = (await runsOf(h.ctx, loopId)).find((run) => run.node_name === 'review')!;
        assert.deepEqual([review.status, review.decided_by, review.reason], ['pass', 'erin', 'approved by erin: looks right']);
      },
    );

    it(
      "rejects with a comment, which the next node's prompt holds; the decider defaults to the OS user",
      { timeout: 120_000 },
      async () => {
        const loopId = await loopWithSpecs(
          h.ctx,
          tempGitRepo(),
          {
            nodes: [approval('review', 1), check('fix', 2, 'echo "fixing: {{previous_output}}"')],
            edges: [{ source: 'review', target: 'fix', condition: 'fail' }],
          },
          [{ name: 'parser' }],
        );
        await h.withWorker(async () => {
          await startLoopRun(h.ctx, loopId);
          await untilLoopStatus(h.ctx, loopId, 'waiting');
          const rejected = await runCanopy(childEnv(h.config), 'reject', loopId, '--comment', 'add tests for empty input', '--json');
          assert.equal(rejected.status, 0, rejected.stderr);
          assert.equal(JSON.parse(rejected.stdout).decision, 'reject');
          assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
        });
        const runs = await runsOf(h.ctx, loopId);
        assert.equal(runs.find((run) => run.node_name === 'fix')?.stdout, 'fixing: add tests for empty input\n');
        assert.equal(runs.find((run) => run.node_name === 'review')?.decided_by, (await import('node:os')).userInfo().username);
      },
    );
  },
);
