// Specs (bound and backlog), queues of specs, and node blueprints through their services.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createBlueprint, deleteBlueprint, listBlueprints } from '../../src/client/blueprints-service';
import { createLoop, deleteLoop } from '../../src/client/loops-service';
import { addQueueSpec, createQueue, deleteQueue, listQueues, removeQueueSpec, reorderQueue } from '../../src/client/queues-service';
import { createSpec, deleteSpec, listSpecs, updateSpec } from '../../src/client/specs-service';
import { BUILTIN_BLUEPRINTS } from '../../src/store/builtin-blueprints';
import { assertRefused, useTestStore } from '../helpers/store';

const store = useTestStore();
const workdir = (name?: string) => store.workdir(name);

describe('specs service', () => {
  it('creates bound and backlog specs and filters them by loop, backlog, workdir and status', async () => {
    const loop = await createLoop(store.ctx, { name: 'l', workdir: workdir() });
    const bound = await createSpec(store.ctx, { loop_id: loop.id, name: 'bound', content: 'do it' });
    const tagged = await createSpec(store.ctx, { name: 'tagged', workdir: workdir() });
    const loose = await createSpec(store.ctx, { name: 'loose' });
    const ids = async (filter: Record<string, unknown>) => (await listSpecs(store.ctx, filter)).map((spec) => spec.id);

    assert.deepEqual(await ids({ loop_id: loop.id }), [bound.id]);
    assert.deepEqual(await ids({ backlog: true }), [tagged.id, loose.id]);
    assert.deepEqual(await ids({ workdir: path.relative(process.cwd(), workdir()) }), [tagged.id]);

    await updateSpec(store.ctx, { spec_id: loose.id, status: 'skipped', loop_id: loop.id });
    assert.deepEqual(await ids({ loop_id: loop.id }), [bound.id, loose.id]);
    assert.deepEqual(await ids({ status: 'skipped' }), [loose.id]);

    await deleteLoop(store.ctx, loop.id);
    // Positions of the two lists collide once they merge, so only membership is certain here.
    assert.deepEqual(
      (await ids({ backlog: true })).sort(),
      [bound.id, tagged.id, loose.id].sort(),
      'specs of a deleted loop return to the backlog',
    );
  });

  it('refuses unknown loops and specs with the command that lists them', async () => {
    await assertRefused(createSpec(store.ctx, { loop_id: 'loop_missing', name: 's' }), { code: 'not_found', message: /canopy loop list/ });
    await assertRefused(updateSpec(store.ctx, { spec_id: 'spec_missing', name: 'x' }), { code: 'not_found', message: /canopy spec list/ });
    await assertRefused(deleteSpec(store.ctx, { spec_id: 'spec_missing' }), { code: 'not_found', message: /canopy spec list/ });
    await assertRefused(listSpecs(store.ctx, { status: 'done' }), { code: 'invalid_input', field: 'status' });
    await assertRefused(createSpec(store.ctx, { name: 's', content: 'a\u0000b' }), {
      code: 'invalid_input',
      field: 'content',
      message: /NUL bytes/,
    });
    assert.deepEqual(await listSpecs(store.ctx), []);
  });
});

describe('queues service', () => {
  async function queueOfThree() {
    const specs = await Promise.all(['a', 'b', 'c'].map((name) => createSpec(store.ctx, { name })));
    const queue = await createQueue(store.ctx, { name: 'next' });
    for (const spec of specs) await addQueueSpec(store.ctx, { queue_id: queue.id, spec_id: spec.id });
    return { queue, ids: specs.map((spec) => spec.id) };
  }

  it('adds at the end or at an index, removes and reorders', async () => {
    const { queue, ids } = await queueOfThree();
    const extra = await createSpec(store.ctx, { name: 'first' });
    assert.deepEqual((await addQueueSpec(store.ctx, { queue_id: queue.id, spec_id: extra.id, index: 0 })).spec_ids, [extra.id, ...ids]);
    assert.deepEqual((await removeQueueSpec(store.ctx, { queue_id: queue.id, spec_id: extra.id })).spec_ids, ids);
    assert.deepEqual((await reorderQueue(store.ctx, { queue_id: queue.id, spec_ids: [...ids].reverse() })).spec_ids, [...ids].reverse());
    await assertRefused(addQueueSpec(store.ctx, { queue_id: queue.id, spec_id: ids[0] }), {
      code: 'conflict',
      message: /already in queue/,
    });
  });

  it('refuses an order that is not a permutation, naming what is missing and what is extra, and keeps the order', async () => {
    const { queue, ids } = await queueOfThree();
    await assertRefused(reorderQueue(store.ctx, { queue_id: queue.id, spec_ids: [ids[2], ids[0], 'spec_stranger'] }), {
      code: 'invalid_input',
      field: 'spec_ids',
      message: new RegExp(`missing ${ids[1]}.*not in the queue spec_stranger`),
    });
    assert.deepEqual(
      (await listQueues(store.ctx)).map((listed) => listed.spec_ids),
      [ids],
    );
  });

  it('refuses a taken name and unknown queues, and deletes a queue leaving its specs', async () => {
    const { queue, ids } = await queueOfThree();
    await assertRefused(createQueue(store.ctx, { name: 'next' }), { code: 'conflict', message: /'next' already exists/ });
    await assertRefused(reorderQueue(store.ctx, { queue_id: 'queue_missing', spec_ids: [] }), {
      code: 'not_found',
      message: /canopy queue list/,
    });
    await deleteQueue(store.ctx, { queue_id: queue.id });
    assert.deepEqual(await listQueues(store.ctx), []);
    assert.deepEqual(
      (await listSpecs(store.ctx)).map((spec) => spec.id),
      ids,
    );
  });
});

describe('blueprints service', () => {
  it('lists the builtins even before any daemon seeded them', async () => {
    const listed = await listBlueprints(store.ctx);
    assert.deepEqual(
      listed
        .filter((blueprint) => blueprint.builtin)
        .map((blueprint) => blueprint.name)
        .sort(),
      BUILTIN_BLUEPRINTS.map((b) => b.name).sort(),
    );
  });

  it('creates a custom blueprint whose config fits its kind, and deletes it', async () => {
    const lint = { name: 'lint', kind: 'check', config: { command: 'npm run lint' } };
    assert.deepEqual(await createBlueprint(store.ctx, lint), { ...lint, builtin: false });
    await assertRefused(createBlueprint(store.ctx, lint), { code: 'conflict', message: /already exists/ });
    assert.deepEqual(await deleteBlueprint(store.ctx, { name: 'lint' }), { name: 'lint', deleted: true });
    await assertRefused(deleteBlueprint(store.ctx, { name: 'lint' }), { code: 'not_found', message: /canopy blueprint list/ });
  });

  it('refuses configs that do not fit the kind, and unknown placeholders', async () => {
    await assertRefused(createBlueprint(store.ctx, { name: 'bad', kind: 'check', config: { cmd: 'x' } }), {
      code: 'invalid_input',
      field: 'config.command',
    });
    await assertRefused(createBlueprint(store.ctx, { name: 'bad', kind: 'agent', config: { prompt_template: 'Do {{ticket}}' } }), {
      code: 'invalid_input',
      field: 'config.prompt_template',
      message: /unknown placeholder \{\{ticket\}\}/,
    });
    assert.equal(
      (await listBlueprints(store.ctx)).some((blueprint) => blueprint.name === 'bad'),
      false,
    );
  });

  it('refuses to delete a builtin or to take a builtin’s name', async () => {
    await assertRefused(deleteBlueprint(store.ctx, { name: 'cargo-gates' }), {
      code: 'refused',
      message: /builtin blueprints cannot be deleted/,
    });
    await assertRefused(createBlueprint(store.ctx, { name: 'cargo-gates', kind: 'check', config: { command: 'make' } }), {
      code: 'conflict',
      message: /builtin/,
    });
    assert.ok((await listBlueprints(store.ctx)).some((blueprint) => blueprint.name === 'cargo-gates' && blueprint.builtin));
  });
});
