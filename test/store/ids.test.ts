// Entity ids: prefix, length and alphabet, and no repeats.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { newId } from '../../src/store';

it('makes ids of a prefix and 12 lowercase base36 characters, without repeats', () => {
  const ids = Array.from({ length: 10_000 }, () => newId('loop'));
  for (const id of ids) assert.match(id, /^loop_[0-9a-z]{12}$/);
  assert.equal(new Set(ids).size, ids.length);
});
