// `canopy loop watch` in a real terminal (tmux) and through a pipe, while a loop with an ensemble
// and a loopback runs: the running member, then the quorum, the live output of the running check,
// then the next round; pause and continue from the view.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { importLoop } from '../../src/client/export-import-service';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { createSpec } from '../../src/client/specs-service';
import { CANOPY_BIN, childEnv, useEngineHarness } from '../helpers/engine';
import { tempDir } from '../helpers/store';
import { waitUntil } from '../helpers/wait';
import { hasTmux, NO_TMUX, openInTmux, tmux } from '../helpers/terminal';
import { fakeReviewers } from '../helpers/loops';

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
});
