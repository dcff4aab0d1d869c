// The dirty-tree guard on the dev server: node runs record what they left uncommitted, checks read
// the paths dirty at the spec's start, and a spec does not start on changes a failed run left
// unless the loop allows it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loopStatus } from '../../src/client/loop-status-service';
import { updateLoop } from '../../src/client/loops-service';
import { resetLoop } from '../../src/client/reset-service';
import { continueLoop, startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { listSpecs } from '../../src/store/specs-repository';
import { useEngineHarness, type EngineHarness } from '../helpers/engine';
import { git, tempGitRepo } from '../helpers/git';
import { chain, check, loopWithSpecs, runsOf, runToEnd, scratchDir, untilLoopStatus } from '../helpers/loops';
import { waitUntil } from '../helpers/wait';
import { scheduledActivities } from '../helpers/workflow-runs';

const QUICK = { timeout: 120_000 };

/**
 * One check: spec `broken` leaves wip.txt behind and fails; any other spec writes what
 * {{spec_start_dirty}} held into `<notes>/<spec>` (outside the workdir, so unconfined: a confined
 * check has a /tmp of its own) and passes.
 */
function leavesWipWhenBroken(notes: string, settings: Record<string, unknown> = {}) {
  const command =
    'if [ "{{spec_name}}" = broken ]; then echo wip > wip.txt; exit 1; fi; ' +
    `printf '%s' "{{spec_start_dirty}}" > ${notes}/"{{spec_name}}"`;
  return { settings: { confine: false, ...settings }, nodes: [check('tests', 1, command)] };
}

async function specStatuses(h: EngineHarness, loopId: string) {
  return (await listSpecs(h.ctx.db, { loopId })).map((spec) => [spec.name, spec.status]);
}

const refusal = (loopId: string, workdir: string) =>
  `spec 'next' does not start: the workdir ${workdir} still has the uncommitted changes the failed run of spec 'broken' left ` +
  `(wip.txt); commit, stash (\`git -C ${workdir} stash --include-untracked\`) or discard them, then \`canopy loop continue ${loopId}\`; ` +
  `or let specs start on a dirty tree with \`canopy loop update ${loopId} --allow-dirty-start\``;

describe('the dirty-tree guard', () => {
  const h = useEngineHarness();

  it('blocks the next spec on the changes a failed spec left, naming them; allow_dirty_start lets it go', QUICK, async () => {
    const workdir = tempGitRepo();
    const notes = scratchDir();
    const loopId = await loopWithSpecs(h.ctx, workdir, leavesWipWhenBroken(notes), [{ name: 'broken' }, { name: 'next' }]);
    await h.withWorker(async () => {
      assert.equal((await runToEnd(h.ctx, loopId)).status, 'failed');
      const [failed] = await runsOf(h.ctx, loopId);
      assert.deepEqual(failed.dirty_paths, ['wip.txt'], 'the failed check recorded what it left uncommitted');

      // Skipping the failed spec moves on to `next`, which would start on wip.txt.
      await continueLoop(h.ctx, loopId, 'skip');
      await untilLoopStatus(h.ctx, loopId, 'blocked');
      assert.equal((await loopStatus(h.ctx, loopId)).live?.blockedReason, refusal(loopId, workdir));
      assert.equal((await runsOf(h.ctx, loopId)).length, 1, 'no node ran on the dirty tree');

      // A continue reads the tree again (the first look came with the claim): still dirty, still blocked.
      await continueLoop(h.ctx, loopId, 'retry');
      await waitUntil(
        'the second look at the tree',
        async () => (await scheduledActivities(await h.ctx.temporal(), loopId, 'inspectSpecStart')) === 1,
      );
      await untilLoopStatus(h.ctx, loopId, 'blocked');
      assert.equal((await loopStatus(h.ctx, loopId)).live?.blockedReason, refusal(loopId, workdir));

      await updateLoop(h.ctx, { loop_id: loopId, settings: { confine: false, allow_dirty_start: true } });
      await continueLoop(h.ctx, loopId, 'retry');
      assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    });
    assert.equal(readFileSync(path.join(notes, 'next'), 'utf8'), 'wip.txt', '{{spec_start_dirty}} named the path');
    assert.deepEqual(await specStatuses(h, loopId), [
      ['broken', 'completed'],
      ['next', 'completed'],
    ]);
    assert.deepEqual(
      (await runsOf(h.ctx, loopId)).map((run) => run.dirty_paths),
      [['wip.txt'], ['wip.txt']],
    );
  });

  it('lets the spec start once the leftovers are stashed; a spec reset to start over is held the same way', QUICK, async () => {
    const workdir = tempGitRepo();
    const notes = scratchDir();
    const loopId = await loopWithSpecs(h.ctx, workdir, leavesWipWhenBroken(notes), [{ name: 'broken' }]);
    await h.withWorker(async () => {
      assert.equal((await runToEnd(h.ctx, loopId)).status, 'failed');
      await resetLoop(h.ctx, loopId, { specs: ['broken'] });
      await startLoopRun(h.ctx, loopId);
      await untilLoopStatus(h.ctx, loopId, 'blocked');
      assert.match((await loopStatus(h.ctx, loopId)).live?.blockedReason ?? '', /^spec 'broken' does not start: .*\(wip\.txt\)/);

      git(workdir, 'stash', '--include-untracked');
      await continueLoop(h.ctx, loopId, 'retry');
      // `broken` still fails (its check always does), but it started: on a clean tree.
      assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'failed');
    });
    const runs = await runsOf(h.ctx, loopId);
    assert.equal(runs.length, 2, 'the spec ran again once the tree was clean');
    assert.deepEqual(runs[1].dirty_paths, ['wip.txt']);
  });

  it('records the tree each node left, though git reads it after the node answered and the next node cleans up', QUICK, async () => {
    const workdir = tempGitRepo();
    const loopId = await loopWithSpecs(h.ctx, workdir, chain(['leaves', 'echo wip > wip.txt'], ['cleans', 'rm wip.txt']), [
      { name: 'only' },
    ]);
    // A git whose status takes a second: the scan of `leaves` is still running when its activity has answered.
    await withSlowGitStatus(() => h.withWorker(() => runToEnd(h.ctx, loopId)));
    assert.deepEqual(
      (await runsOf(h.ctx, loopId)).map((run) => [run.node_name, run.dirty_paths]),
      [
        ['leaves', ['wip.txt']],
        ['cleans', []],
      ],
    );
  });

  it("never holds a spec on a person's own changes, and reads nothing outside a repository", QUICK, async () => {
    const workdir = tempGitRepo();
    writeFileSync(path.join(workdir, 'notes.md'), 'my own work in progress\n');
    writeFileSync(path.join(workdir, 'README.md'), 'edited\n');
    const notes = scratchDir();
    const loopId = await loopWithSpecs(h.ctx, workdir, leavesWipWhenBroken(notes), [{ name: 'first' }]);
    const plain = scratchDir();
    const plainLoop = await loopWithSpecs(h.ctx, plain, leavesWipWhenBroken(notes), [{ name: 'broken' }, { name: 'second' }]);
    await h.withWorker(async () => {
      assert.equal((await runToEnd(h.ctx, loopId)).status, 'completed');
      assert.equal((await runToEnd(h.ctx, plainLoop)).status, 'failed');
      await continueLoop(h.ctx, plainLoop, 'skip');
      assert.equal((await waitForLoopRun(h.ctx, plainLoop)).status, 'completed', 'outside a repository nothing is dirty');
    });
    assert.equal(readFileSync(path.join(notes, 'first'), 'utf8'), 'README.md\nnotes.md');
    assert.deepEqual(
      (await runsOf(h.ctx, loopId)).map((run) => run.dirty_paths),
      [['README.md', 'notes.md']],
    );
    assert.equal(readFileSync(path.join(notes, 'second'), 'utf8'), '');
    assert.deepEqual(
      (await runsOf(h.ctx, plainLoop)).map((run) => run.dirty_paths),
      [null, null],
    );
    assert.ok(existsSync(path.join(plain, 'wip.txt')));
  });
});

/** Runs `work` with a `git` first on PATH that waits a second before each `status`, then runs the real one. */
async function withSlowGitStatus<T>(work: () => Promise<T>): Promise<T> {
  const bin = scratchDir();
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(path.join(bin, 'git'), `#!/bin/sh\nfor arg in "$@"; do [ "$arg" = status ] && sleep 1; done\nexec ${realGit} "$@"\n`);
  chmodSync(path.join(bin, 'git'), 0o755);
  const original = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${original ?? ''}`;
  try {
    return await work();
  } finally {
    process.env.PATH = original;
  }
}
