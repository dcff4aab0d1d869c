// The event-hook activity on its own: a retry of it (a lost worker's) fires no hook a second time,
// another occurrence of the event fires them again, a hook past its time is killed, and a value
// too large for the environment arrives in a file.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MockActivityEnvironment } from '@temporalio/testing';
import { eventHookActivities } from '../../src/activities/event-hooks';
import { activityDeps } from '../../src/daemon';
import { createLoop, updateLoop } from '../../src/client/loops-service';
import type { LoopHooks } from '../../src/domain/hooks';
import { insertLoopRun } from '../../src/store/loop-runs-repository';
import { listNodeRuns } from '../../src/store/node-runs-repository';
import { useTestStore } from '../helpers/store';

const store = useTestStore();

/** A loop with these hooks, an open run of it, and the hook activities to call (their agent endpoint unused). */
async function hookedRun(name: string, workdir: string, hooks: LoopHooks) {
  const loop = await createLoop(store.ctx, { name, workdir });
  await updateLoop(store.ctx, { loop_id: loop.id, hooks });
  const run = await insertLoopRun(store.ctx.db, { loop_id: loop.id, workflow_id: `loop-${loop.id}` });
  return { loop, run, activities: eventHookActivities(activityDeps(store.ctx, 'http://127.0.0.1:9/mcp')) };
}

describe('the event-hook activity', () => {
  it('skips the hooks an earlier attempt finished, and fires again for another occurrence', async () => {
    const workdir = store.workdir();
    const log = path.join(workdir, 'fired.log');
    const { loop, run, activities } = await hookedRun('retried', workdir, {
      on_blocked: [{ command: `echo "a $CANOPY_HOOK_BLOCKER" >> ${log}` }, { command: `echo b >> ${log}` }],
    });
    const { runHooks } = activities;
    const block = (occurrence: string) => ({
      loopId: loop.id,
      loopRunId: run.id,
      event: 'on_blocked' as const,
      occurrence,
      completedSpecIds: [],
      facts: { blocker: 'key', node: 'n' },
    });

    await new MockActivityEnvironment({ attempt: 1 }).run(runHooks, block('1'));
    await new MockActivityEnvironment({ attempt: 2 }).run(runHooks, block('1'));
    assert.equal(readFileSync(log, 'utf8'), 'a key\nb\n');
    await new MockActivityEnvironment({ attempt: 1 }).run(runHooks, block('2'));
    assert.equal(readFileSync(log, 'utf8'), 'a key\nb\n'.repeat(2));
    const runs = await listNodeRuns(store.ctx.db, { loopId: loop.id });
    assert.deepEqual(runs.map((r) => [r.node_name, r.status]).sort(), [
      ['on_blocked[0]', 'pass'],
      ['on_blocked[0]', 'pass'],
      ['on_blocked[1]', 'pass'],
      ['on_blocked[1]', 'pass'],
    ]);
  });

  it('kills a command hook past its timeout and records it failed, then runs the next one', async () => {
    const workdir = store.workdir();
    const marker = path.join(workdir, 'next-ran');
    const { loop, run, activities } = await hookedRun('slow hook', workdir, {
      on_completed: [{ command: 'sleep 60', timeout_minutes: 0.01 }, { command: `touch ${marker}` }],
    });
    const { runHooks } = activities;
    const started = Date.now();
    await new MockActivityEnvironment().run(runHooks, {
      loopId: loop.id,
      loopRunId: run.id,
      event: 'on_completed' as const,
      occurrence: 'run',
      completedSpecIds: [],
      facts: {},
    });
    assert.ok(Date.now() - started < 20_000, 'the hook was killed at its timeout');
    const [slow] = (await listNodeRuns(store.ctx.db, { loopId: loop.id })).filter((r) => r.node_name === 'on_completed[0]');
    assert.deepEqual([slow.status, slow.failure_kind], ['fail', 'timeout']);
    assert.ok(existsSync(marker), 'the next hook still ran');
  });

  it('passes a value over 64 KiB in a file named by CANOPY_HOOK_<NAME>_FILE', async () => {
    const workdir = store.workdir();
    const out = path.join(workdir, 'sizes');
    const { loop, run, activities } = await hookedRun('large blocker', workdir, {
      on_blocked: [{ command: `wc -c < "$CANOPY_HOOK_BLOCKER_FILE" > ${out}; echo "$CANOPY_HOOK_BLOCKER" | tail -1 >> ${out}` }],
    });
    const { runHooks } = activities;
    const blocker = 'x'.repeat(70_000);
    await new MockActivityEnvironment().run(runHooks, {
      loopId: loop.id,
      loopRunId: run.id,
      event: 'on_blocked' as const,
      occurrence: '1',
      completedSpecIds: [],
      facts: { blocker },
    });
    const [size, note] = readFileSync(out, 'utf8').trim().split('\n');
    assert.equal(size.trim(), String(blocker.length));
    assert.match(note, /truncated; the full value \(70000 bytes\) is in \$CANOPY_HOOK_BLOCKER_FILE/);
  });
});
