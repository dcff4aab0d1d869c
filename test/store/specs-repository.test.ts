// The specs repository keeps each list (a loop's, the backlog) in order on both dialects.
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import {
  deleteSpec,
  getSpec,
  insertSpec,
  listSpecs,
  nextPendingSpec,
  recordSpecFailure,
  resetSpecs,
  updateSpec,
  type NewSpec,
} from '../../src/store';
import { describeOnEachDialect, insertTestLoop } from '../helpers/store-dialects';

describeOnEachDialect('specs repository', (store) => {
  let loopId: string;
  beforeEach(async () => {
    loopId = (await insertTestLoop(store.db)).id;
  });

  const spec = (name: string, changes: Partial<NewSpec> = {}): NewSpec => ({
    name,
    content: `do ${name}`,
    loop_id: null,
    workdir: null,
    ...changes,
  });

  it('inserts a pending spec and reads it back', async () => {
    const inserted = await insertSpec(store.db, spec('first', { loop_id: loopId, workdir: '/repo' }));
    assert.match(inserted.id, /^spec_[0-9a-z]{12}$/);
    assert.deepEqual(inserted, {
      id: inserted.id,
      loop_id: loopId,
      name: 'first',
      content: 'do first',
      status: 'pending',
      workdir: '/repo',
      position: 1,
      failure_count: 0,
      budget_usd: null,
      budget_tokens: null,
      summary: null,
      created_at: inserted.created_at,
      updated_at: inserted.created_at,
    });
    assert.deepEqual(await getSpec(store.db, inserted.id), inserted);
  });

  it('keeps a spec’s budgets and clears them', async () => {
    const inserted = await insertSpec(store.db, spec('costly', { budget_usd: 2.5, budget_tokens: 100000 }));
    assert.deepEqual([inserted.budget_usd, inserted.budget_tokens], [2.5, 100000]);
    const cleared = await updateSpec(store.db, inserted.id, { budget_usd: null });
    assert.deepEqual([cleared?.budget_usd, cleared?.budget_tokens], [null, 100000]);
  });

  it('counts a failed run once however often it is recorded, and a reset clears the count', async () => {
    const failing = await insertSpec(store.db, spec('failing', { loop_id: loopId }));
    const counted = async () => {
      const stored = await getSpec(store.db, failing.id);
      return [stored?.status, stored?.failure_count];
    };
    await updateSpec(store.db, failing.id, { status: 'running' });
    await recordSpecFailure(store.db, failing.id);
    await recordSpecFailure(store.db, failing.id);
    assert.deepEqual(await counted(), ['failed', 1]);
    await updateSpec(store.db, failing.id, { status: 'running' });
    await recordSpecFailure(store.db, failing.id);
    assert.deepEqual(await counted(), ['failed', 2]);
    await resetSpecs(store.db, [failing.id]);
    assert.deepEqual(await counted(), ['pending', 0]);
  });

  it('appends each spec to the end of its own list', async () => {
    const l1 = await insertSpec(store.db, spec('l1', { loop_id: loopId }));
    const b1 = await insertSpec(store.db, spec('b1'));
    const l2 = await insertSpec(store.db, spec('l2', { loop_id: loopId }));
    const b2 = await insertSpec(store.db, spec('b2'));
    assert.deepEqual([l1.position, l2.position, b1.position, b2.position], [1, 2, 1, 2]);
  });

  it('lists by loop, backlog, workdir tag and status, in list order', async () => {
    const l1 = await insertSpec(store.db, spec('l1', { loop_id: loopId, workdir: '/a' }));
    const l2 = await insertSpec(store.db, spec('l2', { loop_id: loopId }));
    const b1 = await insertSpec(store.db, spec('b1', { workdir: '/a' }));
    await updateSpec(store.db, l2.id, { status: 'completed' });

    const ids = async (filter: Parameters<typeof listSpecs>[1]) => (await listSpecs(store.db, filter)).map((s) => s.id);
    assert.deepEqual(await ids({ loopId }), [l1.id, l2.id]);
    assert.deepEqual(await ids({ backlogOnly: true }), [b1.id]);
    assert.deepEqual(await ids({ workdir: '/a', backlogOnly: true }), [b1.id]);
    assert.deepEqual(await ids({ loopId, status: 'pending' }), [l1.id]);
    assert.equal((await listSpecs(store.db)).length, 3);
  });

  it('updates fields and the summary, and bumps updated_at', async () => {
    const inserted = await insertSpec(store.db, spec('s', { loop_id: loopId }));
    const updated = await updateSpec(store.db, inserted.id, { status: 'completed', summary: 'Added the parser' });
    assert.deepEqual(updated, { ...inserted, status: 'completed', summary: 'Added the parser', updated_at: updated?.updated_at });
    assert.ok(updated.updated_at >= inserted.updated_at);
  });

  it('moves a spec to the end of the list it joins, unless a position is given', async () => {
    await insertSpec(store.db, spec('l1', { loop_id: loopId }));
    await insertSpec(store.db, spec('l2', { loop_id: loopId }));
    const b1 = await insertSpec(store.db, spec('b1'));
    const b2 = await insertSpec(store.db, spec('b2'));

    assert.equal((await updateSpec(store.db, b2.id, { loop_id: loopId }))?.position, 3);
    assert.equal((await updateSpec(store.db, b2.id, { loop_id: loopId, name: 'renamed' }))?.position, 3, 'same list: stays put');
    assert.equal((await updateSpec(store.db, b1.id, { loop_id: loopId, position: 0.5 }))?.position, 0.5);
    assert.equal((await updateSpec(store.db, b1.id, { loop_id: null }))?.position, 1, 'back to the empty backlog');
  });

  it("gives the loop's first pending spec in list order", async () => {
    const first = await insertSpec(store.db, spec('first', { loop_id: loopId }));
    const second = await insertSpec(store.db, spec('second', { loop_id: loopId }));
    await insertSpec(store.db, spec('backlog'));
    assert.deepEqual(await nextPendingSpec(store.db, loopId), first);
    await updateSpec(store.db, first.id, { status: 'completed' });
    assert.equal((await nextPendingSpec(store.db, loopId))?.id, second.id);
    await updateSpec(store.db, second.id, { status: 'skipped' });
    assert.equal(await nextPendingSpec(store.db, loopId), undefined);
  });

  it('deletes a spec', async () => {
    const inserted = await insertSpec(store.db, spec('s'));
    assert.equal(await deleteSpec(store.db, inserted.id), true);
    assert.equal(await deleteSpec(store.db, inserted.id), false);
    assert.equal(await getSpec(store.db, inserted.id), undefined);
    assert.equal(await updateSpec(store.db, inserted.id, { name: 'x' }), undefined);
  });
});
