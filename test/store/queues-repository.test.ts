// The queues repository keeps ordered spec lists on both dialects.
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import { CanopyError } from '../../src/domain';
import {
  addSpecToQueue,
  createQueue,
  deleteQueue,
  deleteSpec,
  getQueue,
  getSpec,
  insertSpec,
  isUniqueViolation,
  listQueues,
  removeSpecFromQueue,
  reorderQueue,
} from '../../src/store';
import { describeOnEachDialect } from '../helpers/store-dialects';

describeOnEachDialect('queues repository', (store) => {
  let specIds: string[];
  beforeEach(async () => {
    specIds = [];
    for (const name of ['a', 'b', 'c']) specIds.push((await insertSpec(store.db, { name, content: '', loop_id: null, workdir: null })).id);
  });

  it('creates an empty queue and reads it back', async () => {
    const queue = await createQueue(store.db, 'nightly');
    assert.match(queue.id, /^queue_[0-9a-z]{12}$/);
    assert.deepEqual(queue, { id: queue.id, name: 'nightly', spec_ids: [], created_at: queue.created_at });
    assert.deepEqual(await getQueue(store.db, queue.id), queue);
  });

  it('refuses a second queue with the same name', async () => {
    await createQueue(store.db, 'nightly');
    await assert.rejects(createQueue(store.db, 'nightly'), isUniqueViolation);
  });

  it('adds specs at the end or at an index, and removes them', async () => {
    const [a, b, c] = specIds;
    const queue = await createQueue(store.db, 'q');
    await addSpecToQueue(store.db, queue.id, a);
    await addSpecToQueue(store.db, queue.id, b);
    assert.deepEqual((await addSpecToQueue(store.db, queue.id, c, 0))?.spec_ids, [c, a, b]);
    assert.deepEqual((await removeSpecFromQueue(store.db, queue.id, a))?.spec_ids, [c, b]);
    assert.deepEqual((await getQueue(store.db, queue.id))?.spec_ids, [c, b]);
  });

  it('refuses to add a spec that is already queued, leaving the queue as it was', async () => {
    const [a, b] = specIds;
    const queue = await createQueue(store.db, 'q');
    await addSpecToQueue(store.db, queue.id, a);
    await addSpecToQueue(store.db, queue.id, b);
    await assert.rejects(addSpecToQueue(store.db, queue.id, a, 0), isUniqueViolation);
    assert.deepEqual((await getQueue(store.db, queue.id))?.spec_ids, [a, b]);
  });

  it('reorders to a permutation of its specs and refuses anything else, changing nothing', async () => {
    const [a, b, c] = specIds;
    const queue = await createQueue(store.db, 'q');
    for (const id of specIds) await addSpecToQueue(store.db, queue.id, id);

    assert.deepEqual((await reorderQueue(store.db, queue.id, [c, a, b]))?.spec_ids, [c, a, b]);
    for (const order of [
      [c, a],
      [c, a, b, 'spec_other'],
      [c, a, a, b],
    ]) {
      await assert.rejects(reorderQueue(store.db, queue.id, order), (error: unknown) => {
        assert.ok(error instanceof CanopyError);
        assert.equal(error.code, 'invalid_input');
        assert.equal(error.issues[0].field, 'spec_ids');
        return true;
      });
    }
    assert.deepEqual((await getQueue(store.db, queue.id))?.spec_ids, [c, a, b]);
  });

  it('answers undefined when changing a queue that does not exist', async () => {
    assert.equal(await getQueue(store.db, 'queue_missing'), undefined);
    assert.equal(await addSpecToQueue(store.db, 'queue_missing', specIds[0]), undefined);
    assert.equal(await removeSpecFromQueue(store.db, 'queue_missing', specIds[0]), undefined);
    assert.equal(await reorderQueue(store.db, 'queue_missing', []), undefined);
  });

  it('lists queues by name with their specs', async () => {
    const [a, b, c] = specIds;
    const second = await createQueue(store.db, 'second');
    const first = await createQueue(store.db, 'first');
    await addSpecToQueue(store.db, second.id, c);
    await addSpecToQueue(store.db, first.id, b);
    await addSpecToQueue(store.db, first.id, a);
    assert.deepEqual(await listQueues(store.db), [
      { ...first, spec_ids: [b, a] },
      { ...second, spec_ids: [c] },
    ]);
  });

  it('drops a deleted spec from its queues, and deleting a queue keeps its specs', async () => {
    const [a, b] = specIds;
    const queue = await createQueue(store.db, 'q');
    await addSpecToQueue(store.db, queue.id, a);
    await addSpecToQueue(store.db, queue.id, b);
    await deleteSpec(store.db, a);
    assert.deepEqual((await getQueue(store.db, queue.id))?.spec_ids, [b]);

    assert.equal(await deleteQueue(store.db, queue.id), true);
    assert.equal(await deleteQueue(store.db, queue.id), false);
    assert.ok(await getSpec(store.db, b));
  });
});
