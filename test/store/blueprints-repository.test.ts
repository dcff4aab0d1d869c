// The blueprints repository stores custom blueprints and seeds the five builtins, on both dialects.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type Blueprint } from '../../src/domain';
import { NODE_KIND_RULES } from '../../src/node-kinds/registry';
import {
  BUILTIN_BLUEPRINTS,
  deleteBlueprint,
  getBlueprint,
  insertBlueprint,
  isUniqueViolation,
  listBlueprints,
  seedBuiltinBlueprints,
} from '../../src/store';
import { describeOnEachDialect } from '../helpers/store-dialects';

const BUILTIN_NAMES = ['implementer-claude', 'cargo-gates', 'reviewer-committer-mimo', 'commit-check', 'resilience-mimo'];

describeOnEachDialect('blueprints repository', (store) => {
  it('seeds the five builtins once', async () => {
    assert.deepEqual(await seedBuiltinBlueprints(store.db), BUILTIN_NAMES);
    assert.deepEqual(await seedBuiltinBlueprints(store.db), []);
    const stored = await listBlueprints(store.db);
    assert.deepEqual(
      stored,
      BUILTIN_BLUEPRINTS.map((b) => ({ ...b, builtin: true })).sort((x, y) => (x.name < y.name ? -1 : 1)),
    );
  });

  it('re-seeds a builtin deleted from the database', async () => {
    await seedBuiltinBlueprints(store.db);
    assert.equal(await deleteBlueprint(store.db, 'commit-check'), true);
    assert.equal(await getBlueprint(store.db, 'commit-check'), undefined);
    assert.deepEqual(await seedBuiltinBlueprints(store.db), ['commit-check']);
    assert.equal((await getBlueprint(store.db, 'commit-check'))?.builtin, true);
  });

  it('leaves alone a custom blueprint that took a builtin name', async () => {
    const custom: Blueprint = { name: 'cargo-gates', kind: 'check', config: { command: 'cargo test' }, builtin: false };
    await insertBlueprint(store.db, custom);
    assert.equal((await seedBuiltinBlueprints(store.db)).includes('cargo-gates'), false);
    assert.deepEqual(await getBlueprint(store.db, 'cargo-gates'), custom);
  });

  it('round-trips custom blueprints, listed after the builtins', async () => {
    await seedBuiltinBlueprints(store.db);
    const gate: Blueprint = { name: 'says-ok', kind: 'gate', config: { output_contains: 'OK' }, builtin: false };
    assert.deepEqual(await insertBlueprint(store.db, gate), gate);
    assert.deepEqual(await getBlueprint(store.db, 'says-ok'), gate);
    await assert.rejects(insertBlueprint(store.db, gate), isUniqueViolation);
    assert.deepEqual((await listBlueprints(store.db)).at(-1), gate);
    assert.equal(await deleteBlueprint(store.db, 'says-ok'), true);
    assert.equal(await deleteBlueprint(store.db, 'says-ok'), false);
  });
});

it('defines every builtin with a config its node kind accepts', () => {
  assert.deepEqual(
    BUILTIN_BLUEPRINTS.map((b) => b.name),
    BUILTIN_NAMES,
  );
  for (const blueprint of BUILTIN_BLUEPRINTS) {
    const parsed = NODE_KIND_RULES[blueprint.kind].config.safeParse(blueprint.config);
    assert.ok(parsed.success, `${blueprint.name}: ${parsed.error?.message}`);
  }
});
