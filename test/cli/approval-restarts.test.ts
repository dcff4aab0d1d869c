// A waiting approval outlives everything that runs it: `canopy up` and its Temporal dev server are
// SIGKILLed while a loop waits, started again on the same home, and the approval is decided afterwards.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { processesMentioning, upEnv } from '../helpers/canopy-up';
import { tempGitRepo } from '../helpers/git';
import { approval, check, linked } from '../helpers/loops';
import { canopySync, spawnCanopy, waitForOutput, type CanopyProcess } from '../helpers/processes';
import { waitUntil } from '../helpers/wait';

it(
  'a waiting approval survives canopy up and its Temporal server killed and restarted, and is decided afterwards',
  { timeout: 240_000 },
  async () => {
    const { home, env } = await upEnv();
    const canopy = (...args: string[]) => {
      const result = canopySync(env, args, { timeout: 60_000 });
      assert.equal(result.status, 0, `canopy ${args.join(' ')}: ${result.stderr}`);
      return result.stdout;
    };
    const inbox = () => JSON.parse(canopy('inbox', '--json')) as { loop_id: string; node: string }[];

    const workdir = tempGitRepo();
    const file = path.join(home, 'loop.json');
    const shape = linked(check('implement', 1, 'echo implemented'), approval('review', 2), check('commit', 3, 'echo committed'));
    const edges = shape.edges!.map((edge) => ({ ...edge, condition: 'pass' }));
    writeFileSync(file, JSON.stringify({ format_version: 3, name: 'restarts', description: '', nodes: shape.nodes, edges, ensembles: [] }));

    let up: CanopyProcess = spawnCanopy(['up'], env);
    await waitForOutput(up, /canopy is up/);
    const loopId = (JSON.parse(canopy('loop', 'import', file, '--workdir', workdir, '--json')) as { loop_id: string }).loop_id;
    canopy('spec', 'create', '--loop', loopId, '--name', 'feature', '--content', 'add a feature');
    canopy('loop', 'run', loopId);
    await waitUntil('the approval to wait', () => Promise.resolve(inbox().some((item) => item.loop_id === loopId) || undefined), 60_000);

    const server = Number(/pid (\d+)/.exec(up.output())![1]);
    up.child.kill('SIGKILL');
    process.kill(server, 'SIGKILL');
    await up.exited;
    await waitUntil('every process of the home to be gone', () => Promise.resolve(processesMentioning(home).length === 0 || undefined));

    up = spawnCanopy(['up'], env);
    await waitForOutput(up, /canopy is up/);
    assert.deepEqual(
      inbox()
        .filter((item) => item.loop_id === loopId)
        .map((item) => item.node),
      ['review'],
    );
    assert.match(canopy('approve', loopId, '--by', 'erin'), /approved by erin; the loop goes on/);
    await waitUntil(
      'the loop to complete',
      () =>
        Promise.resolve((JSON.parse(canopy('loop', 'info', loopId, '--json')) as { status: string }).status === 'completed' || undefined),
      60_000,
    );
    const page = JSON.parse(canopy('loop', 'runs', loopId, '--json')) as {
      runs: { node: string; status: string; reason: string | null }[];
    };
    const runs = page.runs.reverse();
    assert.deepEqual(
      runs.map((run) => [run.node, run.status]),
      [
        ['implement', 'pass'],
        ['review', 'pass'],
        ['commit', 'pass'],
      ],
    );
    assert.equal(runs[1].reason, 'approved by erin');
    up.child.kill('SIGINT');
    await up.exited;
  },
);
