// `canopy loop watch` in a real terminal (tmux) and through a pipe, while a loop with an ensemble
// and a loopback runs: the running member, then the quorum, the live output of the running check,
// then the next round; pause and continue from the view. Then a loop waiting at an approval: its
// node, its message (redacted, its control characters shown escaped) and the commands that decide
// it, one of which a person copies from the log to approve it. Then a loop blocked for making no progress:
// its reason in the view, the log and `loop runs`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { importLoop } from '../../src/client/export-import-service';
import { continueLoop, startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { createSpec } from '../../src/client/specs-service';
import { CANOPY_BIN, childEnv, useEngineHarness } from '../helpers/engine';
import { tempGitRepo } from '../helpers/git';
import { runCanopy } from '../helpers/processes';
import { tempDir } from '../helpers/store';
import { waitUntil } from '../helpers/wait';
import { hasTmux, NO_TMUX, openInTmux, tmux } from '../helpers/terminal';
import {
  approval,
  check,
  checkedFix,
  FAILS_UNTIL_FIXED,
  fakeReviewers,
  linked,
  loopWithSpecs,
  runsOf,
  untilLoopStatus,
} from '../helpers/loops';

const REVIEW_LOOP = {
  format_version: 1,
  name: 'watched',
  description: '',
  nodes: [
    {
      name: 'implement',
      kind: 'agent',
      position: 1,
      config: { platform: 'fake', prompt_template: '@sleep 2\n@print implemented', timeout_minutes: 1 },
    },
    {
      name: 'tests',
      kind: 'check',
      position: 3,
      config: {
        command: "echo 'running the tests'; sleep 3; test -f passed-once || { touch passed-once; echo 'first round fails'; exit 1; }",
        timeout_minutes: 1,
      },
    },
  ],
  edges: [{ source: 'tests', target: 'implement', condition: 'fail', type: 'loopback' }],
  ensembles: [fakeReviewers(3)],
};

/** `text` as a regular expression matching it alone. */
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('canopy loop watch', { skip: hasTmux ? false : NO_TMUX }, () => {
  const engine = useEngineHarness();

  it('follows a run in a terminal and a pipe, and pauses and continues it from its keys', async () => {
    const workdir = tempDir('canopy-watch-');
    const { loop_id } = await importLoop(engine.ctx, REVIEW_LOOP, { workdir });
    await createSpec(engine.ctx, { loop_id, name: 'greeting', content: 'add a greeting' });
    const env = childEnv(engine.config);
    const session = `canopy-watch-${process.pid}`;
    openInTmux({
      session,
      size: [110, 50],
      env: { CANOPY_HOME: env.CANOPY_HOME!, TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS! },
      command: `${process.execPath} ${CANOPY_BIN} loop watch ${loop_id}`,
    });
    const screen = () => tmux('capture-pane', '-p', '-t', session);
    const shows = (what: string, pattern: RegExp) =>
      waitUntil(`the view to show ${what}`, () => Promise.resolve(pattern.test(screen())), 60_000);

    const piped = spawn(process.execPath, [CANOPY_BIN, 'loop', 'watch', loop_id], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    piped.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const pipedExit = new Promise<number | null>((resolve) => piped.once('exit', resolve));

    try {
      await engine.withWorker(async () => {
        await startLoopRun(engine.ctx, loop_id);
        await shows('the slow member running beside the finished one', /pass\s+fake\/fast[\s\S]*running\s+fake\/slow/);
        await shows('the quorum passed', /reviewers \[2 models\] quorum 2 of 2\s+pass/);
        await shows('the running check’s output as it prints', /live output \(tests\):\s+running the tests/);
        await shows('the loopback into round 2', /implement\s+(running|pass)[^\n]*round 2/);

        tmux('send-keys', '-t', session, 'p');
        await shows('the loop paused', /watched \(loop_\w+\)\s+paused/);
        await waitUntil('the piped log to see the pause', () => Promise.resolve(log.includes('loop watched paused')));
        tmux('send-keys', '-t', session, 'c');
        await shows('the loop running again', /continued \(signal, retry\)/);
        assert.equal((await waitForLoopRun(engine.ctx, loop_id)).status, 'completed');
      });
      await shows('the loop completed', /watched \(loop_\w+\)\s+completed/);
      tmux('send-keys', '-t', session, 'q');
      await waitUntil('the view to quit on q', () => Promise.resolve(!tmux('list-sessions').includes(session)), 10_000);

      assert.equal(await pipedExit, 0, 'the piped watch ends by itself when the loop ends');
      const lines = log.split('\n');
      for (const expected of [
        'spec greeting started',
        'reviewers/member-2 (fake/slow) running',
        'reviewers pass',
        'implement running (round 2)',
        'loop watched paused',
        'loop watched completed',
      ]) {
        assert.ok(lines.includes(expected), `the piped log has '${expected}':\n${log}`);
      }
      assert.ok(!log.includes('\x1b['), 'a pipe gets plain lines, no cursor control');
    } finally {
      tmux('kill-session', '-t', session);
      piped.kill();
    }
  });

  it('shows the approval a waiting loop waits at, its message and the commands that decide it', async () => {
    const token = `ghp_${'x'.repeat(36)}`;
    const message = `Ship {{spec_name}} with ${token}? \u001b[31mred\u001b[0m\nChanged:\n{{changes}}`;
    const shape = linked(
      check('implement', 1, 'echo new > feature.txt'),
      approval('review', 2, { message_template: message }),
      check('commit', 3, 'echo committed'),
    );
    const loopId = await loopWithSpecs(engine.ctx, tempGitRepo(), shape, [{ name: 'feature' }]);
    const env = childEnv(engine.config);
    const session = `canopy-watch-approval-${process.pid}`;
    openInTmux({
      session,
      size: [110, 40],
      env: { CANOPY_HOME: env.CANOPY_HOME!, TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS! },
      command: `${process.execPath} ${CANOPY_BIN} loop watch ${loopId}`,
    });
    const screen = () => tmux('capture-pane', '-p', '-t', session);
    const piped = spawn(process.execPath, [CANOPY_BIN, 'loop', 'watch', loopId], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    piped.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const pipedExit = new Promise<number | null>((resolve) => piped.once('exit', resolve));
    const approve = `canopy approve ${loopId} --node review`;
    const reject = `canopy reject ${loopId} --node review --comment "…"`;
    try {
      await engine.withWorker(async () => {
        await startLoopRun(engine.ctx, loopId);
        await untilLoopStatus(engine.ctx, loopId, 'waiting');
        const waiting = new RegExp(
          [
            'approval review waits for a person since \\S+:',
            '  \\| Ship feature with \\[REDACTED\\]\\? \\\\x1b\\[31mred\\\\x1b\\[0m',
            '  \\| Changed:',
            '  \\|  feature\\.txt \\| 1 \\+',
            '[\\s\\S]*',
            `  approve  ${literally(approve)}`,
            `  reject   ${literally(reject)}`,
          ].join('\n'),
        );
        await waitUntil('the view to show the approval', () => Promise.resolve(waiting.test(screen())), 60_000).catch((error: Error) => {
          throw new Error(`${error.message}; the screen was:\n${screen()}`);
        });
        await waitUntil('the piped log to show it', () => Promise.resolve(waiting.test(log)), 30_000);

        // A person copies the command from the log.
        const command = /^ {2}approve {2}canopy (.+)$/m.exec(log)![1].split(' ');
        const approved = await runCanopy(env, ...command);
        assert.equal(approved.status, 0, approved.stderr);
        assert.equal((await waitForLoopRun(engine.ctx, loopId)).status, 'completed');
      });
      await waitUntil('the view to drop the approval once the loop completes', () =>
        Promise.resolve(/\(loop_\w+\)\s+completed/.test(screen()) && !screen().includes('waits for a person')),
      );
      assert.equal(await pipedExit, 0);
      const lines = log.split('\n');
      assert.ok(lines.indexOf('loop engine test waiting') < lines.indexOf(`  approve  ${approve}`), log);
      assert.equal(lines.filter((line) => line.startsWith('approval review waits')).length, 1, 'the approval is told once');
      assert.ok(!log.includes(token) && !screen().includes(token), 'the message is redacted');
      assert.ok(!log.includes('\x1b'), 'its control characters are escaped');
      assert.equal((await runsOf(engine.ctx, loopId)).find((run) => run.node_name === 'commit')?.stdout, 'committed\n');
    } finally {
      tmux('kill-session', '-t', session);
      piped.kill();
    }
  });

  it('shows why a loop is blocked for making no progress, in the view, the log and loop runs', async () => {
    const workdir = tempGitRepo();
    const shape = checkedFix('@print nothing to change', FAILS_UNTIL_FIXED, { max_stalled_rounds: 2 });
    const loopId = await loopWithSpecs(engine.ctx, workdir, shape, [{ name: 'stuck' }]);
    const env = childEnv(engine.config);
    const session = `canopy-watch-stalled-${process.pid}`;
    openInTmux({
      session,
      size: [200, 40],
      env: { CANOPY_HOME: env.CANOPY_HOME!, TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS! },
      command: `${process.execPath} ${CANOPY_BIN} loop watch ${loopId}`,
    });
    const screen = () => tmux('capture-pane', '-p', '-J', '-t', session);
    const piped = spawn(process.execPath, [CANOPY_BIN, 'loop', 'watch', loopId], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    piped.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const blocked =
      /^blocked: no_progress: 2 rounds in a row of the loop headed by 'fixer' ended with the workdir unchanged and tests failing/m;
    try {
      await engine.withWorker(async () => {
        await startLoopRun(engine.ctx, loopId);
        await untilLoopStatus(engine.ctx, loopId, 'blocked');
        await waitUntil('the view to say why', () => Promise.resolve(blocked.test(screen())), 60_000).catch((error: Error) => {
          throw new Error(`${error.message}; the screen was:\n${screen()}`);
        });
        await waitUntil('the piped log to say why', () => Promise.resolve(blocked.test(log)), 30_000);
        const runs = await runCanopy(env, 'loop', 'runs', loopId);
        assert.equal(runs.status, 0, runs.stderr);
        assert.match(runs.stdout, /^blocked {2}no_progress: 2 rounds in a row [^\n]*FAIL: fixed\.txt is missing\./);
        writeFileSync(path.join(workdir, 'fixed.txt'), 'done\n');
        await continueLoop(engine.ctx, loopId, 'retry');
        assert.equal((await waitForLoopRun(engine.ctx, loopId)).status, 'completed');
      });
    } finally {
      tmux('kill-session', '-t', session);
      piped.kill();
    }
  });
});
