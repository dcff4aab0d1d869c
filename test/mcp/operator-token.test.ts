// The operator token file: made once (even by processes starting together), random, readable by its owner only.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, it } from 'node:test';
import { operatorToken, operatorTokenPath } from '../../src/mcp/operator-token';
import { tempDir } from '../helpers/store';

const scratch = tempDir('canopy-mcp-token-');
after(() => rmSync(scratch, { recursive: true, force: true }));

it('creates <home>/mcp-token with 32 random bytes as hex and mode 0600, and every later call reads the same token', async () => {
  const home = path.join(scratch, 'home-not-yet-made');
  const tokens = await Promise.all([operatorToken(home), operatorToken(home), operatorToken(home)]);
  assert.equal(new Set(tokens).size, 1, 'callers starting together agree on one token');
  const [token] = tokens;
  assert.match(token, /^[0-9a-f]{64}$/);
  assert.equal(operatorTokenPath(home), path.join(home, 'mcp-token'));
  assert.equal(statSync(operatorTokenPath(home)).mode & 0o777, 0o600);
  assert.equal(readFileSync(operatorTokenPath(home), 'utf8').trim(), token);
  assert.equal(await operatorToken(home), token);
  assert.notEqual(await operatorToken(path.join(scratch, 'another-home')), token);
});
