// <home> is its user's alone: 0700, with the store's files, Temporal's database and config.json 0600, whatever the umask.
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writeFileConfig } from '../../src/agents/config';
import { openContext } from '../../src/client/context';
import { createSpec } from '../../src/client/specs-service';
import { loadConfig } from '../../src/config';
import { operatorToken } from '../../src/mcp/operator-token';
import { ensurePrivateDirectory } from '../../src/private-files';
import { resolveTemporalBinary } from '../../src/temporal/binary';
import { DATABASE_PRAGMAS, startDevServer } from '../../src/temporal/dev-server';
import { freePort } from '../../src/temporal/free-port';
import { tempDir } from '../helpers/store';

const modeOf = (file: string) => statSync(file).mode & 0o777;
const STORE_FILES = ['canopy.db', 'canopy.db-wal', 'canopy.db-shm'];

describe('private files', () => {
  // A umask of 0 would leave everything canopy does not set itself world-readable.
  let previousUmask: number;
  before(() => {
    previousUmask = process.umask(0);
  });
  after(() => {
    process.umask(previousUmask);
  });

  it('creates <home> 0700 and canopy.db with its -wal and -shm 0600', async () => {
    const home = path.join(tempDir('canopy-private-'), 'new', 'home');
    const ctx = await openContext(loadConfig({ CANOPY_HOME: home }));
    try {
      await createSpec(ctx, { name: 'written' });
      assert.equal(modeOf(home), 0o700);
      for (const file of STORE_FILES) assert.equal(modeOf(path.join(home, file)), 0o600, file);
    } finally {
      await ctx.close();
    }
  });

  it('narrows a home and store files that others could read, when they are ours', async () => {
    const home = tempDir('canopy-private-');
    // The first context keeps the -wal and -shm files in place while the second one opens.
    const first = await openContext(loadConfig({ CANOPY_HOME: home }));
    try {
      await createSpec(first, { name: 'written' });
      chmodSync(home, 0o755);
      for (const file of STORE_FILES) chmodSync(path.join(home, file), 0o644);
      await (await openContext(loadConfig({ CANOPY_HOME: home }))).close();
      assert.equal(modeOf(home), 0o700);
      for (const file of STORE_FILES) assert.equal(modeOf(path.join(home, file)), 0o600, file);
    } finally {
      await first.close();
    }
  });

  it('writes config.json 0600, as a new file and over one others could read', () => {
    const home = tempDir('canopy-private-');
    const file = path.join(home, 'config.json');
    writeFileConfig(home, { platforms: {} });
    assert.equal(modeOf(file), 0o600);
    chmodSync(file, 0o644);
    writeFileConfig(home, { ensemble_concurrency: 2 });
    assert.equal(modeOf(file), 0o600);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { ensemble_concurrency: 2 });
  });

  it('narrows a config.json a person wrote that others could read, when canopy opens the home', async () => {
    const home = tempDir('canopy-private-');
    const file = path.join(home, 'config.json');
    // As an editor saves it under the person's umask.
    writeFileSync(file, JSON.stringify({ platforms: { claude: { env: { ANTHROPIC_API_KEY: 'sk-secret' } } } }), { mode: 0o644 });
    assert.equal(modeOf(file), 0o644);
    await (await openContext(loadConfig({ CANOPY_HOME: home }))).close();
    assert.equal(modeOf(file), 0o600);
  });

  it('makes the home of the operator token 0700', async () => {
    const home = path.join(tempDir('canopy-private-'), 'token-home');
    await operatorToken(home);
    assert.equal(modeOf(home), 0o700);
    assert.equal(modeOf(path.join(home, 'mcp-token')), 0o600);
  });

  it('starts the dev server so temporal.db, its -wal and -shm and temporal.log are 0600, and narrows an older wider database', async () => {
    const binary = resolveTemporalBinary();
    assert.ok(binary, 'the Temporal CLI is installed');
    const home = tempDir('canopy-private-');
    chmodSync(home, 0o755);
    const [dbFile, logFile] = [path.join(home, 'temporal.db'), path.join(home, 'temporal.log')];
    const address = `127.0.0.1:${await freePort()}`;
    const options = { binary: binary.path, address, uiPort: null, dbFile, sqlitePragmas: DATABASE_PRAGMAS, logFile };
    const files = [dbFile, `${dbFile}-wal`, `${dbFile}-shm`, logFile];
    let server = await startDevServer(options);
    try {
      assert.equal(modeOf(home), 0o700);
      assert.deepEqual(files.map(modeOf), [0o600, 0o600, 0o600, 0o600]);
      await server.stop();
      for (const file of files) chmodSync(file, 0o644);
      server = await startDevServer(options);
      assert.deepEqual(files.map(modeOf), [0o600, 0o600, 0o600, 0o600]);
    } finally {
      await server.stop();
    }
  });

  it(
    'leaves alone a wide directory it does not own',
    { skip: process.getuid?.() !== 0 && 'needs root to make a directory owned by someone else' },
    () => {
      const shared = path.join(tempDir('canopy-private-'), 'shared');
      mkdirSync(shared, { mode: 0o755 });
      chownSync(shared, 65534, 65534);
      ensurePrivateDirectory(shared);
      assert.equal(modeOf(shared), 0o755);
    },
  );
});
