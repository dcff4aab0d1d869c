// The inbox of `canopy tui` in a real terminal (tmux), over two loops waiting at an approval on the
// dev server: the count and a row per approval at the top of the sidebar, Enter showing the rendered
// message (redacted), `y` approving one (its loop goes on to commit and completes), `n` asking for a
// comment, refusing an empty one with the service's reason, and rejecting the other with the comment
// typed, which the next node's prompt holds.
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import os from 'node:os';
import { describe, it } from 'node:test';
import type { ClientContext } from '../../src/client/context';
import { updateLoop } from '../../src/client/loops-service';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { CANOPY_BIN, useEngineHarness } from '../helpers/engine';
import { tempGitRepo } from '../helpers/git';
import { agent, approval, check, linked, loopWithSpecs, runsOf, untilLoopStatus, type LoopShape } from '../helpers/loops';
import { hasTmux, NO_TMUX, openInTmux, paneOf, sidebar, terminalEnv, tmux } from '../helpers/terminal';

const TOKEN = `ghp_${'y'.repeat(36)}`;

async function namedLoop(ctx: ClientContext, name: string, workdir: string, shape: LoopShape, spec: string): Promise<string> {
  const loopId = await loopWithSpecs(ctx, workdir, shape, [{ name: spec }]);
  await updateLoop(ctx, { loop_id: loopId, name });
  return loopId;
}

describe('canopy tui inbox', { skip: hasTmux ? false : NO_TMUX }, () => {
  const engine = useEngineHarness();

  it(
    'shows the waiting approvals, opens one with Enter, approves it with y, and rejects another with n and a comment',
    { timeout: 180_000 },
    async () => {
      const { ctx } = engine;
      const started = Date.now();
      const shipWorkdir = realpathSync(tempGitRepo());
      const ship = await namedLoop(
        ctx,
        'ship-it',
        shipWorkdir,
        linked(
          check('implement', 1, 'echo new > feature.txt'),
          approval('review', 2, { message_template: `Ship {{spec_name}}? Deploy key ${TOKEN}\nChanged:\n{{changes}}` }),
          check('commit', 3, 'echo committed'),
        ),
        'feature',
      );
      const fix = await namedLoop(
        ctx,
        'fix-it',
        tempGitRepo(),
        {
          nodes: [
            agent('implement', 1, '@write parser.txt code'),
            approval('review', 2),
            agent('fix', 3, '@print fixing\nThe reviewer said: {{previous_feedback}}'),
          ],
          edges: [
            { source: 'implement', target: 'review' },
            { source: 'review', target: 'fix', condition: 'fail' },
          ],
        },
        'parser',
      );
      const me = os.userInfo().username;
      const session = `canopy-tui-inbox-${process.pid}`;
      const { screen, shows, press, type } = paneOf(session);
      await engine.withWorker(async () => {
        // Oldest first: ship-it waits before fix-it.
        await startLoopRun(ctx, ship);
        await untilLoopStatus(ctx, ship, 'waiting');
        await startLoopRun(ctx, fix);
        await untilLoopStatus(ctx, fix, 'waiting');
        openInTmux({
          session,
          cwd: shipWorkdir,
          size: [140, 45],
          env: terminalEnv(engine.config),
          command: `${process.execPath} ${CANOPY_BIN} tui`,
        });
        try {
          await shows('the inbox', /Inbox · 2/);
          assert.match(
            sidebar(screen()),
            /Inbox · 2[^\n]*\n[^\n]*›\s+\? ship-it · review \d\d-\d\d \d\d:\d\d[^\n]*\n[^\n]*\s\? fix-it · review [^\n]*\n[^\n]*Projects/,
            'a row per approval, the oldest selected',
          );
          await shows(
            'where the approval waits',
            /approval review of loop ship-it \(loop_\w+\)[\s\S]*spec feature · round 1 · waiting since/,
          );
          assert.ok(!screen().includes('Deploy key'), 'the message shows only once opened');

          await press('Enter');
          await shows(
            'the rendered message, redacted',
            /Ship feature\? Deploy key \[REDACTED\][\s\S]*Changed:[\s\S]* feature\.txt \| 1 \+/,
          );
          await shows('the keys that decide it', /y approve · n reject/);
          assert.ok(!screen().includes(TOKEN), 'the secret never shows');

          await press('y');
          await shows('the approval decided', new RegExp(`Approval 'review' of loop ${ship} approved by ${me}; the loop goes on\\.`));
          assert.equal((await waitForLoopRun(ctx, ship)).status, 'completed');
          await shows('the inbox without it', /Inbox · 1/);
          await press('j', 'j'); // the fix-it approval, this directory's project → ship-it
          await shows('the loop gone on to commit and completed', /ship-it \(loop_\w+\)\s+completed[\s\S]*commit\s+pass/);

          await press('k', 'k', 'Enter', 'n');
          await shows('the question for the comment', /reject review of fix-it, saying why/);
          assert.match(screen(), /Spec parser, round 1\. Changed:/, 'the message stays in view while the comment is typed');
          await press('Enter');
          await shows(
            'the empty comment refused with the service’s reason',
            /refused: The decision is invalid; nothing was changed\.\s+- comment: must not be empty/,
          );
          assert.equal((await runsOf(ctx, fix)).find((run) => run.node_name === 'review')?.status, 'waiting', 'nothing was decided');

          await press('Enter', 'n');
          await type('the parser needs tests');
          await press('Enter');
          await shows('the rejection', new RegExp(`Approval 'review' of loop ${fix} rejected by ${me}; the loop goes on\\.`));
          assert.equal((await waitForLoopRun(ctx, fix)).status, 'completed');
          await shows('the inbox empty', /Inbox · 0/);
          await press('q');
        } finally {
          tmux('kill-session', '-t', session);
        }
      });

      const shipRuns = await runsOf(ctx, ship);
      const approved = shipRuns.find((run) => run.node_name === 'review')!;
      assert.deepEqual([approved.status, approved.decided_by], ['pass', me]);
      assert.equal(shipRuns.find((run) => run.node_name === 'commit')?.stdout, 'committed\n');
      const fixRuns = await runsOf(ctx, fix);
      const rejected = fixRuns.find((run) => run.node_name === 'review')!;
      assert.deepEqual(
        [rejected.status, rejected.failure_kind, rejected.decided_by, rejected.stdout],
        ['fail', 'rejected', me, 'the parser needs tests'],
      );
      const fixed = fixRuns.find((run) => run.node_name === 'fix')!;
      assert.match(
        fixed.input,
        new RegExp(`The reviewer said: [\\s\\S]*rejected by ${me}: the parser needs tests`),
        'the next node’s prompt holds the comment',
      );
      console.log(`tui inbox, two loops decided from the app: ${Date.now() - started} ms`);
    },
  );
});
