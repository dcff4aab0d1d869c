// `canopy tui` in a real terminal (tmux) over a seeded store: projects with their loops, the backlog
// of the selected project, blueprints, a running loop's ensemble live, the loop editor with an
// $EDITOR that writes an invalid then a valid config, pause and continue, and quitting; a loop's
// graph edited (nodes and edges added, refused and removed), the built-in editor, the scheduled
// glyph, stop, reset, archive and restore; then how soon the first frame shows with 200 loops, and
// how little CPU the app uses while idle.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createBlueprint } from '../../src/client/blueprints-service';
import { importLoop } from '../../src/client/export-import-service';
import { scheduleAutorun } from '../../src/client/autorun-service';
import { archiveLoop, createLoop, getLoop } from '../../src/client/loops-service';
import { waitForLoopRun } from '../../src/client/runs-service';
import { createSpec, listSpecs } from '../../src/client/specs-service';
import { setLoopStatus } from '../../src/store/loops-repository';
import { CANOPY_BIN, childEnv, useEngineHarness } from '../helpers/engine';
import { tempDir } from '../helpers/store';
import { waitUntil } from '../helpers/wait';
import { hasTmux, INVERSE, NO_TMUX, openInTmux, paneOf, sidebar, terminalEnv, tmux } from '../helpers/terminal';
import { check, fakeReviewers, loopWithSpecs } from '../helpers/loops';

const IMPLEMENT = { platform: 'fake', prompt_template: '@sleep 2\n@print implemented', timeout_minutes: 1 };

const REVIEW_LOOP = {
  format_version: 1,
  name: 'reviewed',
  description: '',
  nodes: [
    { name: 'implement', kind: 'agent', position: 1, config: IMPLEMENT },
    { name: 'tests', kind: 'check', position: 3, config: { command: 'echo tested', timeout_minutes: 1 } },
  ],
  edges: [],
  ensembles: [fakeReviewers(4)],
};

describe('canopy tui', { skip: hasTmux ? false : NO_TMUX }, () => {
  const engine = useEngineHarness();
  const appEnv = () => terminalEnv(engine.config);

  it('refuses without a terminal, pointing to loop watch and loop list', () => {
    const result = spawnSync(process.execPath, [CANOPY_BIN, 'tui'], { env: childEnv(engine.config), encoding: 'utf8' });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^canopy: canopy tui needs a terminal; .*`canopy loop watch <loop_id>`.*`canopy loop list`\.\n$/);
  });

  it('shows projects, backlogs and blueprints, follows a running loop, edits its config, pauses and continues it', async () => {
    const here = realpathSync(tempDir('canopy-tui-here-'));
    const there = realpathSync(tempDir('canopy-tui-there-'));
    const { ctx } = engine;
    const { loop_id } = await importLoop(ctx, REVIEW_LOOP, { workdir: here });
    await createSpec(ctx, { loop_id, name: 'greeting', content: 'add a greeting' });
    const finished = await createLoop(ctx, { name: 'finished', workdir: here });
    await setLoopStatus(ctx.db, finished.id, 'completed');
    const broken = await createLoop(ctx, { name: 'broken', workdir: there });
    await setLoopStatus(ctx.db, broken.id, 'failed');
    await createLoop(ctx, { name: 'waiting', workdir: there });
    await archiveLoop(ctx, (await createLoop(ctx, { name: 'shelved', workdir: there })).id);
    await createSpec(ctx, { name: 'local-task', content: 'for here', workdir: here });
    await createSpec(ctx, { name: 'remote-task', content: 'for there', workdir: there });
    await createSpec(ctx, { name: 'anywhere-task', content: 'for any workdir' });
    await createBlueprint(ctx, { name: 'my-check', kind: 'check', config: { command: 'true' } });

    // The editor: a script that writes whatever the test put in next.json.
    const scratch = tempDir('canopy-tui-editor-');
    const next = path.join(scratch, 'next.json');
    const editor = path.join(scratch, 'editor.sh');
    writeFileSync(editor, `#!/bin/sh\ncp ${next} "$1"\n`, { mode: 0o755 });

    const session = `canopy-tui-${process.pid}`;
    openInTmux({
      session,
      cwd: here,
      size: [140, 45],
      env: { ...appEnv(), EDITOR: editor },
      command: `sh -c '${process.execPath} ${CANOPY_BIN} tui; echo "tui exited $?"; sleep 60'`,
    });
    const { screen, shows, press } = paneOf(session);
    try {
      await shows('the projects', /Blueprints/);
      const side = sidebar(screen());
      const order = [
        'Projects',
        here,
        'finished',
        'reviewed',
        there,
        'broken',
        'waiting',
        `Backlog · ${path.basename(here)}`,
        'local-task',
      ];
      const at = order.map((text) => side.indexOf(text));
      assert.deepEqual(
        [...at].sort((a, b) => a - b),
        at,
        `this directory's project first, each with its loops:\n${side}`,
      );
      assert.ok(!side.includes('shelved'), 'archived loops are hidden');
      assert.match(side, /✓ finished[\s\S]*○ reviewed[\s\S]*✗ broken[\s\S]*○ waiting/);
      assert.match(side, /Backlog · any\s*│\s*\n.*anywhere-task/);
      assert.ok(!side.includes('remote-task'), 'the backlog holds the selected project’s specs only');
      assert.match(side, /commit-check builtin[\s\S]*my-check custom/);

      await press('h');
      await shows('the archived loop', /○ shelved/);
      await press('h');

      await press('j', 'j', 'j'); // here, finished, reviewed → there
      await shows('the other project’s backlog', new RegExp(`Backlog · ${path.basename(there)}[^\\n]*\\n.*remote-task`));
      assert.ok(!sidebar(screen()).includes('local-task'), screen());

      await press('k'); // back to reviewed
      await shows('the loop with its ensemble collapsed', /reviewers \[2 models\] quorum 2 of 2/);
      await shows('the loop’s specs', /pending\s+greeting/);

      // The editor: an invalid config is refused field by field and changes nothing.
      writeFileSync(next, JSON.stringify({ ...IMPLEMENT, timeout_minutes: -1 }));
      await press('Tab', 'i');
      await shows('the refusal next to its field', /refused; nothing was changed:[\s\S]*config\.timeout_minutes: /);
      const stored = async () => (await getLoop(ctx, loop_id)).nodes.find((node) => node.name === 'implement')!.config;
      assert.deepEqual(await stored(), IMPLEMENT);
      const edited = { ...IMPLEMENT, prompt_template: '@sleep 2\n@print edited in the app' };
      writeFileSync(next, JSON.stringify(edited));
      await press('i');
      await shows('the config stored', /stored the config of node implement/);
      assert.deepEqual(await stored(), edited);

      await engine.withWorker(async () => {
        await press('r');
        await shows('the slow member running beside the finished one', /pass\s+fake\/fast[\s\S]*running\s+fake\/slow/);
        await press('p');
        await shows('the loop paused', /reviewed \(loop_\w+\)\s+paused/);
        await press('c');
        await shows('the loop continued', /continued \(signal, retry\)/);
        assert.equal((await waitForLoopRun(ctx, loop_id)).status, 'completed');
      });
      await shows('the loop completed', /✓ reviewed \(loop_\w+\)\s+completed/);
      await shows('its runs, newest first', /Runs \(newest first[\s\S]*pass\s+tests[\s\S]*pass\s+implement/);
      writeFileSync(path.join(scratch, 'screen.txt'), screen());

      await press('q');
      await shows('the shell again, the app exited 0', /tui exited 0/, 10_000);
      assert.ok(!screen().includes('Blueprints'), 'the app’s screen is gone');
      console.log(`tui screen:\n${readFileSync(path.join(scratch, 'screen.txt'), 'utf8')}`);
    } finally {
      tmux('kill-session', '-t', session);
    }
  });

  it('edits a loop’s graph, edits a config in the built-in editor, shows a scheduled autorun, stops, resets, archives and restores', async () => {
    const workdir = realpathSync(tempDir('canopy-tui-graph-'));
    const { ctx } = engine;
    const shape = {
      nodes: [check('wait', 1, 'sleep 300'), check('tests', 2, 'echo tested')],
      edges: [{ source: 'wait', target: 'tests' }],
    };
    const loopId = await loopWithSpecs(ctx, workdir, shape, [{ name: 'task' }]);
    const graph = async () => {
      const loop = await getLoop(ctx, loopId);
      return {
        nodes: loop.nodes.map((node) => `${node.kind} ${node.name} ${JSON.stringify(node.config)}`).sort(),
        edges: loop.edges.map((edge) => `${edge.source} → ${edge.target} on ${edge.condition}`).sort(),
      };
    };
    const session = `canopy-tui-graph-${process.pid}`;
    openInTmux({
      session,
      cwd: workdir,
      size: [140, 45],
      env: appEnv(),
      unset: ['VISUAL', 'EDITOR'],
      command: `${process.execPath} ${CANOPY_BIN} tui`,
    });
    const { shows, press, type } = paneOf(session);
    const started = Date.now();
    try {
      await shows('the loop', /engine test/);
      await press('j');
      await shows('its graph', /wait\s+pending[\s\S]*↓ pass → tests/);

      await press('a');
      await shows('the syntax of a node', /add node: kind name \{json config\}/);
      await type('check lint {"command":"npm run lint"}');
      await press('Enter');
      await shows('the added node', /lint\s+pending/);
      assert.ok((await graph()).nodes.includes('check lint {"command":"npm run lint"}'));

      const before = await graph();
      await press('a');
      await type('gate judge @no-such-blueprint');
      await press('Enter');
      await shows(
        'the refusal with the available blueprints',
        /no blueprint is named 'no-such-blueprint'; available blueprints:[\s\S]*commit-check/,
      );
      assert.deepEqual(await graph(), before);

      await press('w');
      await shows('the syntax of an edge', /add edge: source target/);
      await type('tests lint');
      await press('Enter');
      await shows('the added edge', /↓ pass → lint/);
      assert.ok((await graph()).edges.includes('tests → lint on pass'));

      await press('Tab', 'j', 'j', 'x'); // wait, tests → lint
      await shows('the question', /Remove the check lint and its edges\? y confirms/);
      await press('n');
      await shows('the removal cancelled', /cancelled/);
      assert.equal((await graph()).nodes.length, 3);
      await press('x');
      await shows('the question again', /Remove the check lint/);
      await press('y');
      await shows('the node removed', /removed check node 'lint'/);
      await shows('the graph without it', /^(?![\s\S]*lint\s+pending)/);
      assert.deepEqual(await graph(), { nodes: before.nodes.filter((node) => !node.includes('lint')), edges: ['wait → tests on pass'] });

      await press('j'); // past the nodes (wait, tests) to the edge
      const inverse = () => tmux('capture-pane', '-p', '-e', '-t', session).split(INVERSE).slice(1);
      await waitUntil('the edge drawn inverse', () => Promise.resolve(inverse().some((text) => /^\s*↓ pass → tests/.test(text))));
      await press('x');
      await shows('the question', /Remove the edge wait → tests on pass\? y confirms/);
      await press('y');
      await shows('the edge removed', /removed flow edge wait -> tests on pass/);
      assert.deepEqual((await graph()).edges, []);

      // The built-in editor, with neither $VISUAL nor $EDITOR set.
      await press('k', 'i'); // tests
      await shows('the config in the built-in editor', /editing node tests[\s\S]*"command": "echo tested",/);
      await press('Down', 'End', 'Enter');
      await type('  "idle_timeout_minutes": 39');
      await press('BSpace');
      await type(',');
      await shows('the edited text', /"idle_timeout_minutes": 3,\s/);
      await press('C-s');
      await shows('the config stored', /stored the config of node tests/);
      const stored = async () => (await getLoop(ctx, loopId)).nodes.find((node) => node.name === 'tests')!.config;
      assert.deepEqual(await stored(), { command: 'echo tested', idle_timeout_minutes: 3, timeout_minutes: 1 });
      await press('i');
      await shows('the editor on the stored config', /editing node tests[\s\S]*"idle_timeout_minutes": 3,/);
      await type('x');
      await shows('the text typed', /x\{/);
      await press('C-s');
      await shows('the refusal of a text that is not JSON', /refused; nothing was changed:[\s\S]*\(json\): /);
      await press('i');
      await shows('the editor again on that text', /editing node tests[\s\S]*x\{/);
      await press('Escape');
      await shows('the edit abandoned', /edit abandoned; nothing was changed/);
      assert.deepEqual(await stored(), { command: 'echo tested', idle_timeout_minutes: 3, timeout_minutes: 1 });

      await press('@');
      await type('2099-01-01T09:00:00Z');
      await press('Enter');
      await shows('the autorun set', /autorun at 2099-01-01T09:00:00.000Z/);
      await shows('the scheduled glyph', /◷ engine test/);

      await engine.withWorker(async () => {
        await press('r');
        await shows('the loop running', /engine test \(loop_\w+\)\s+running/);
        await press('t');
        await shows('the question', /Stop loop engine test\? y confirms/);
        await press('y');
        await shows('the loop stopped', /stopped \(cancelled\)/);
      });
      assert.equal((await getLoop(ctx, loopId)).status, 'failed');
      const specs = async () => (await listSpecs(ctx, { loop_id: loopId })).map((spec) => spec.status);
      assert.deepEqual(await specs(), ['failed']);
      await press('R');
      await shows('the question', /Reset the specs of loop engine test\? y confirms/);
      await press('y');
      await shows('the specs reset', /reset 1 spec\(s\)/);
      assert.deepEqual(await specs(), ['pending']);

      await press('A');
      await shows('the question', /Archive loop engine test\? y confirms/);
      await press('y');
      await shows('the loop archived and hidden', /^(?![\s\S]*engine test)/);
      assert.equal((await getLoop(ctx, loopId)).archived, true);
      await press('h');
      await shows('the archived loop selected again', /engine test \(loop_\w+\)\s+\w+\s+archived/);
      await press('A');
      await shows('the question', /Restore loop engine test\? y confirms/);
      await press('y');
      await shows('the loop restored', /restored/);
      assert.equal((await getLoop(ctx, loopId)).archived, false);
      console.log(`tui graph edits, editor, autorun and lifecycle: ${Date.now() - started} ms`);
    } finally {
      tmux('kill-session', '-t', session);
      await scheduleAutorun(ctx, loopId, null);
    }
  });

  it('keeps a long loop name inside the sidebar, selected or not, its right border whole on every line', async () => {
    const workdir = realpathSync(tempDir('canopy-tui-long-'));
    const name = 'a-loop-whose-name-runs-well-past-the-width-of-the-sidebar';
    await createLoop(engine.ctx, { name, workdir });
    const session = `canopy-tui-long-${process.pid}`;
    openInTmux({ session, cwd: workdir, size: [150, 30], env: appEnv(), command: `${process.execPath} ${CANOPY_BIN} tui` });
    const { screen, shows, press } = paneOf(session);
    const sidebarBorderBroken = () =>
      screen()
        .split('\n')
        .filter((line) => line.startsWith('\u2502') && line.includes(name.slice(0, 20)) && line[37] !== '\u2502');
    try {
      await shows('the loop', new RegExp(name.slice(0, 20)));
      assert.deepEqual(sidebarBorderBroken(), [], 'unselected');
      await press('j');
      await shows('the loop selected', new RegExp(`${name} \\(loop_\\w+\\)`));
      assert.deepEqual(sidebarBorderBroken(), [], 'selected');
    } finally {
      tmux('kill-session', '-t', session);
    }
  });

  it('draws its first frame soon with 200 loops, and idles cheaply', async () => {
    const bulk = realpathSync(tempDir('canopy-tui-bulk-'));
    for (let i = 0; i < 200; i++) await createLoop(engine.ctx, { name: `bulk-${String(i).padStart(3, '0')}`, workdir: bulk });
    const session = `canopy-tui-bulk-${process.pid}`;
    const started = Date.now();
    openInTmux({
      session,
      cwd: bulk,
      size: [140, 45],
      env: appEnv(),
      command: `${process.execPath} ${CANOPY_BIN} tui`,
    });
    const { shows, press } = paneOf(session);
    try {
      await shows('the first loops', /bulk-000/, 30_000);
      const firstFrameMs = Date.now() - started;
      await press('j'); // follow the first loop, as a person looking at it would
      await shows('the loop followed', /bulk-000 \(loop_\w+\)/);
      const panePid = tmux('list-panes', '-t', session, '-F', '#{pane_pid}').trim();
      // The pane's shell may have exec'd node, or be its parent.
      const pid = readFileSync(`/proc/${panePid}/comm`, 'utf8').startsWith('node')
        ? panePid
        : readFileSync(`/proc/${panePid}/task/${panePid}/children`, 'utf8').trim().split(' ')[0];
      const ticks = () => {
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
        return Number(fields[11]) + Number(fields[12]); // utime + stime
      };
      const windowMs = 15_000;
      const before = ticks();
      await new Promise((resolve) => setTimeout(resolve, windowMs));
      const cpuPercent = ((ticks() - before) / 100 / (windowMs / 1000)) * 100;
      console.log(
        `tui first frame with 200 loops: ${firstFrameMs} ms; idle CPU over ${windowMs / 1000} s: ${cpuPercent.toFixed(1)} % of a core`,
      );
      assert.ok(firstFrameMs < 30_000);
      assert.ok(cpuPercent < 50, `idle CPU ${cpuPercent} %`);
    } finally {
      tmux('kill-session', '-t', session);
    }
  });
});
