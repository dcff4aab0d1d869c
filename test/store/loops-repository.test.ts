// The loops repository round-trips loops and their lookups on both dialects.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  deleteLoop,
  findLoopByName,
  getLoop,
  insertLoop,
  isUniqueViolation,
  listLoops,
  loopCountsByHost,
  loopNamesInWorkdir,
  setLoopStatus,
  updateLoop,
} from '../../src/store';
import { describeOnEachDialect, insertTestLoop } from '../helpers/store-dialects';

describeOnEachDialect('loops repository', (store) => {
  it('inserts a pending, unarchived loop and reads it back', async () => {
    const loop = await insertLoop(store.db, { name: 'ship', workdir: '/repo', description: 'Ship it', settings: { max_iterations: 3 } });
    assert.match(loop.id, /^loop_[0-9a-z]{12}$/);
    assert.deepEqual(loop, {
      id: loop.id,
      name: 'ship',
      workdir: '/repo',
      host: null,
      description: 'Ship it',
      status: 'pending',
      settings: { max_iterations: 3 },
      hooks: {},
      archived: false,
      created_at: loop.created_at,
      updated_at: loop.created_at,
    });
    assert.ok(!Number.isNaN(Date.parse(loop.created_at)));
    assert.deepEqual(await getLoop(store.db, loop.id), loop);
  });

  it('updates only the given fields, bumps updated_at, and sets or clears the hooks', async () => {
    const loop = await insertTestLoop(store.db);
    const hooks = { on_completed: [{ platform: 'claude', prompt: 'Summarise {{completed_specs}}' }], on_failed: [{ command: 'true' }] };
    const updated = await updateLoop(store.db, loop.id, { description: 'new', hooks, archived: true });
    assert.deepEqual(updated, { ...loop, description: 'new', hooks, archived: true, updated_at: updated?.updated_at });
    assert.ok(updated.updated_at >= loop.updated_at);

    const cleared = await updateLoop(store.db, loop.id, { hooks: {} });
    assert.deepEqual(cleared?.hooks, {});
    assert.equal(cleared?.description, 'new');
  });

  it('records the host a loop lives on, moves it, and counts the unarchived loops of each host', async () => {
    const here = await insertLoop(store.db, { name: 'here', workdir: '/repo', description: '', settings: {}, host: 'host-a' });
    assert.equal((await getLoop(store.db, here.id))?.host, 'host-a');
    await insertLoop(store.db, { name: 'also here', workdir: '/repo', description: '', settings: {}, host: 'host-a' });
    const moved = await insertLoop(store.db, { name: 'moved', workdir: '/repo', description: '', settings: {}, host: 'host-a' });
    assert.equal((await updateLoop(store.db, moved.id, { host: 'host-b' }))?.host, 'host-b');
    const archived = await insertLoop(store.db, { name: 'archived', workdir: '/repo', description: '', settings: {}, host: 'host-c' });
    await updateLoop(store.db, archived.id, { archived: true });
    await insertTestLoop(store.db, 'anywhere');
    assert.deepEqual(
      [...(await loopCountsByHost(store.db))],
      [
        ['host-a', 2],
        ['host-b', 1],
      ],
    );
    assert.equal((await updateLoop(store.db, moved.id, { host: null }))?.host, null);
  });

  it('sets the status', async () => {
    const loop = await insertTestLoop(store.db);
    assert.equal((await setLoopStatus(store.db, loop.id, 'running'))?.status, 'running');
    assert.equal((await getLoop(store.db, loop.id))?.status, 'running');
  });

  it('lists loops by name, hiding archived ones unless asked', async () => {
    const b = await insertTestLoop(store.db, 'b');
    const a = await insertTestLoop(store.db, 'a');
    const archived = await insertTestLoop(store.db, 'c');
    await updateLoop(store.db, archived.id, { archived: true });
    assert.deepEqual(
      (await listLoops(store.db)).map((l) => l.id),
      [a.id, b.id],
    );
    assert.deepEqual(
      (await listLoops(store.db, { includeArchived: true })).map((l) => l.id),
      [a.id, b.id, archived.id],
    );
  });

  it('finds loops by workdir and name, and lists the names taken in a workdir', async () => {
    const loop = await insertTestLoop(store.db, 'build', '/one');
    await insertTestLoop(store.db, 'alpha', '/one');
    await insertTestLoop(store.db, 'build', '/two');
    assert.deepEqual(await findLoopByName(store.db, '/one', 'build'), loop);
    assert.equal(await findLoopByName(store.db, '/three', 'build'), undefined);
    assert.deepEqual(await loopNamesInWorkdir(store.db, '/one'), ['alpha', 'build']);
  });

  it('refuses a second loop with the same name in the same workdir', async () => {
    await insertTestLoop(store.db, 'twin', '/repo');
    await assert.rejects(insertTestLoop(store.db, 'twin', '/repo'), isUniqueViolation);
    await insertTestLoop(store.db, 'twin', '/elsewhere');
  });

  it('deletes a loop, and answers undefined or false for one that does not exist', async () => {
    const loop = await insertTestLoop(store.db);
    assert.equal(await deleteLoop(store.db, loop.id), true);
    assert.equal(await deleteLoop(store.db, loop.id), false);
    assert.equal(await getLoop(store.db, loop.id), undefined);
    assert.equal(await updateLoop(store.db, loop.id, { name: 'x' }), undefined);
  });
});
