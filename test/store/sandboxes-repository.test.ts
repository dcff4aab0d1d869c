// The sandboxes repository records each sandboxed run's worktree and what became of it, on both dialects.
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import {
  deleteLoop,
  getSandbox,
  insertSandbox,
  isUniqueViolation,
  listSandboxes,
  sandboxOfRun,
  updateSandbox,
  type NewSandbox,
} from '../../src/store';
import { describeOnEachDialect, insertTestLoop } from '../helpers/store-dialects';

describeOnEachDialect('sandboxes repository', (store) => {
  let loopId: string;
  const made = (loopRunId: string, loop = loopId): NewSandbox => ({
    loop_id: loop,
    loop_run_id: loopRunId,
    branch: `canopy/sandbox-${loopRunId}`,
    path: `/home/canopy/sandboxes/${loopRunId}`,
    base_head: 'a'.repeat(40),
    host: 'build-1',
  });
  beforeEach(async () => {
    loopId = (await insertTestLoop(store.db)).id;
  });

  it('inserts an active sandbox and finds it by id and by its run', async () => {
    const sandbox = await insertSandbox(store.db, made('lrun_one'));
    assert.match(sandbox.id, /^sbx_[0-9a-z]{12}$/);
    assert.deepEqual(sandbox, {
      ...made('lrun_one'),
      id: sandbox.id,
      status: 'active',
      landed_commit: null,
      created_at: sandbox.created_at,
      updated_at: sandbox.created_at,
    });
    assert.deepEqual(await getSandbox(store.db, sandbox.id), sandbox);
    assert.deepEqual(await sandboxOfRun(store.db, 'lrun_one'), sandbox);
    assert.equal(await sandboxOfRun(store.db, 'lrun_other'), undefined);
  });

  it('refuses a second sandbox for one run', async () => {
    await insertSandbox(store.db, made('lrun_one'));
    await assert.rejects(insertSandbox(store.db, made('lrun_one')), isUniqueViolation);
  });

  it('records landing, lists newest first by loop, and goes with its loop', async () => {
    const other = (await insertTestLoop(store.db, 'other')).id;
    const first = await insertSandbox(store.db, made('lrun_one'));
    const second = await insertSandbox(store.db, made('lrun_two'));
    await insertSandbox(store.db, made('lrun_three', other));
    const landed = await updateSandbox(store.db, first.id, { status: 'landed', landed_commit: 'b'.repeat(40) });
    assert.equal(landed?.status, 'landed');
    assert.equal(landed?.landed_commit, 'b'.repeat(40));
    const ids = (await listSandboxes(store.db, { loopId })).map((s) => s.id);
    assert.deepEqual(new Set(ids), new Set([first.id, second.id]));
    assert.equal((await listSandboxes(store.db)).length, 3);
    await deleteLoop(store.db, loopId);
    assert.deepEqual(
      (await listSandboxes(store.db)).map((s) => s.loop_id),
      [other],
    );
  });
});
