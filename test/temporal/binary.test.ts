// Which Temporal CLI canopy uses: $CANOPY_TEMPORAL_BIN, then `temporal` on PATH, then the project's own build.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { missingBinaryMessage, PINNED_TEMPORAL_CLI, resolveTemporalBinary } from '../../src/temporal/binary';
import { devServerArgs } from '../../src/temporal/dev-server';

function executable(dir: string, name = 'temporal'): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  writeFileSync(file, '#!/bin/sh\necho fake temporal\n');
  chmodSync(file, 0o755);
  return file;
}

describe('Temporal CLI resolution', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'canopy-binary-'));
  const onPath = executable(path.join(root, 'path-bin'));
  const projectBin = path.join(root, 'project', '.tools', 'bin');
  const built = executable(projectBin);
  const emptyProject = path.join(root, 'empty', '.tools', 'bin');

  it('prefers $CANOPY_TEMPORAL_BIN over PATH and the project build', () => {
    const chosen = executable(path.join(root, 'chosen'));
    assert.deepEqual(resolveTemporalBinary({ CANOPY_TEMPORAL_BIN: chosen, PATH: path.dirname(onPath) }, projectBin), {
      path: chosen,
      source: 'CANOPY_TEMPORAL_BIN',
    });
  });

  it('refuses a $CANOPY_TEMPORAL_BIN that is not executable instead of silently using another binary', () => {
    const env = { CANOPY_TEMPORAL_BIN: path.join(root, 'missing'), PATH: path.dirname(onPath) };
    assert.equal(resolveTemporalBinary(env, projectBin), null);
    assert.match(missingBinaryMessage(env), /CANOPY_TEMPORAL_BIN is set to '.*missing', which is not an executable file/);
  });

  it('takes `temporal` on PATH before the project build', () => {
    assert.deepEqual(resolveTemporalBinary({ PATH: `/nonexistent${path.delimiter}${path.dirname(onPath)}` }, projectBin), {
      path: onPath,
      source: 'PATH',
    });
  });

  it('falls back to the project build in .tools/bin', () => {
    assert.deepEqual(resolveTemporalBinary({ PATH: '/nonexistent' }, projectBin), { path: built, source: 'project build' });
  });

  it('finds nothing when none exists, and says what to install', () => {
    assert.equal(resolveTemporalBinary({ PATH: '/nonexistent' }, emptyProject), null);
    const message = missingBinaryMessage({ PATH: '/nonexistent' });
    assert.match(message, new RegExp(`go install|npm run setup`));
    assert.ok(message.includes(PINNED_TEMPORAL_CLI));
  });
});

describe('dev server arguments', () => {
  it('binds to the given loopback address, keeps data in the db file and registers canopy’s search attributes', () => {
    const args = devServerArgs({ binary: 'temporal', address: '127.0.0.1:7999', uiPort: 8999, dbFile: '/tmp/x/temporal.db' });
    const joined = args.join(' ');
    assert.match(joined, /^server start-dev --ip 127\.0\.0\.1 --port 7999 /);
    assert.match(joined, /--ui-port 8999/);
    assert.match(joined, /--db-filename \/tmp\/x\/temporal\.db/);
    for (const key of ['CanopyLoopId', 'CanopyLoopName', 'CanopyWorkdir', 'CanopyLoopStatus'])
      assert.ok(args.includes(`${key}=Keyword`), key);
    assert.ok(devServerArgs({ binary: 'temporal', address: '127.0.0.1:7999', uiPort: null }).includes('--headless'));
  });
});
