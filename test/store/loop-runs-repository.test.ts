// The loop-runs repository records workflow runs of a loop, on both dialects.
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import { createQueue, deleteQueue, getLoopRun, insertLoopRun, latestLoopRun, markLoopRunHookFired, updateLoopRun } from '../../src/store';
import { describeOnEachDialect, insertTestLoop } from '../helpers/store-dialects';

describeOnEachDialect('loop-runs repository', (store) => {
  let loopId: string;
  beforeEach(async () => {
    loopId = (await insertTestLoop(store.db)).id;
  });

  it('inserts a running run and reads it back', async () => {
    const run = await insertLoopRun(store.db, { loop_id: loopId, workflow_id: `loop-${loopId}` });
    assert.match(run.id, /^lrun_[0-9a-z]{12}$/);
    assert.deepEqual(run, {
      id: run.id,
      loop_id: loopId,
      workflow_id: `loop-${loopId}`,
      queue_id: null,
      status: 'running',
      failing_node: null,
      failure_kind: null,
      failure_reason: null,
      resume: null,
      started_at: run.started_at,
      ended_at: null,
      hook_fired: false,
    });
    assert.deepEqual(await getLoopRun(store.db, run.id), run);
  });

  it('records a failure and its resume point', async () => {
    const run = await insertLoopRun(store.db, { loop_id: loopId, workflow_id: 'wf' });
    const failure = {
      status: 'failed',
      failing_node: 'review',
      failure_kind: 'iteration_limit',
      failure_reason: "Loop headed by 'implement' exceeded 5 rounds",
      resume: JSON.stringify({ vertex: 'implement', rounds: { implement: 5 } }),
      ended_at: new Date().toISOString(),
    } as const;
    assert.deepEqual(await updateLoopRun(store.db, run.id, failure), { ...run, ...failure });
    assert.equal(await updateLoopRun(store.db, 'lrun_missing', failure), undefined);
  });

  it('gives the most recently started run of the loop', async () => {
    assert.equal(await latestLoopRun(store.db, loopId), undefined);
    await insertLoopRun(store.db, { loop_id: loopId, workflow_id: 'wf', started_at: '2025-01-01T00:00:00.000Z' });
    const latest = await insertLoopRun(store.db, { loop_id: loopId, workflow_id: 'wf', started_at: '2025-01-02T00:00:00.000Z' });
    await insertLoopRun(store.db, { loop_id: loopId, workflow_id: 'wf', started_at: '2024-12-31T00:00:00.000Z' });
    assert.deepEqual(await latestLoopRun(store.db, loopId), latest);
  });

  it('gives the run before the newest when told to leave the newest out', async () => {
    const first = await insertLoopRun(store.db, { loop_id: loopId, workflow_id: 'wf', started_at: '2025-01-01T00:00:00.000Z' });
    assert.equal(await latestLoopRun(store.db, loopId, first.id), undefined);
    const second = await insertLoopRun(store.db, { loop_id: loopId, workflow_id: 'wf', started_at: '2025-01-02T00:00:00.000Z' });
    assert.deepEqual(await latestLoopRun(store.db, loopId, second.id), first);
  });

  it('marks the hook fired for exactly one caller', async () => {
    const run = await insertLoopRun(store.db, { loop_id: loopId, workflow_id: 'wf' });
    const claims = await Promise.all([markLoopRunHookFired(store.db, run.id), markLoopRunHookFired(store.db, run.id)]);
    assert.deepEqual(claims.sort(), [false, true]);
    assert.equal((await getLoopRun(store.db, run.id))?.hook_fired, true);
  });

  it('keeps a run whose queue is deleted', async () => {
    const queue = await createQueue(store.db, 'q');
    const run = await insertLoopRun(store.db, { loop_id: loopId, workflow_id: 'wf', queue_id: queue.id });
    assert.equal(run.queue_id, queue.id);
    await deleteQueue(store.db, queue.id);
    assert.equal((await getLoopRun(store.db, run.id))?.queue_id, null);
  });
});
