// The CLI as users run it: one bundled script, V8's compiled code for it from the build, and stack
// traces that still name the sources.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  CLI_BUNDLE_PATH,
  CODE_CACHE_PATH,
  HELP_CODE_CACHE_PATH,
  TEMPORAL_CLIENT_BUNDLE_PATH,
  TEMPORAL_CLIENT_CODE_CACHE_PATH,
} from '../../src/cli/bundle/paths';
import { compileBundle } from '../../src/cli/bundle/load';
import { CANOPY_BIN, compiledPath, PROJECT_ROOT } from '../../src/project';
import { freePort } from '../../src/temporal/free-port';
import { tempDir } from '../helpers/store';

/** The files the CLI process had loaded by require when it exited after `args` (the bundles themselves are not). */
function filesLoadedBy(
  args: string[],
  { status = 0, env = {} }: { status?: number; env?: NodeJS.ProcessEnv } = {},
): { files: string[]; stdout: string } {
  const recorder = `process.on('exit', () => process.stderr.write('\\nLOADED' + JSON.stringify(Object.keys(require.cache))));`;
  const result = spawnSync(
    process.execPath,
    ['-e', `${recorder}\nprocess.argv.splice(1, 0, 'canopy'); require(${JSON.stringify(CANOPY_BIN)});`, '--', ...args],
    {
      encoding: 'utf8',
      env: { ...process.env, CANOPY_HOME: tempDir(), ...env },
    },
  );
  assert.equal(result.status, status, result.stderr);
  const files = (JSON.parse(result.stderr.split('LOADED').pop()!) as string[]).filter((file) => file !== CANOPY_BIN);
  return { files: files.map((file) => path.relative(PROJECT_ROOT, file)), stdout: result.stdout };
}

describe('the bundled CLI', () => {
  for (const args of [['--version'], ['--help']]) {
    it(`canopy ${args.join(' ')} loads a handful of files and no package`, () => {
      const { files, stdout } = filesLoadedBy(args);
      assert.ok(stdout.length > 0, 'it printed');
      assert.ok(files.length <= 5, `loaded ${files.length} files: ${files.join(', ')}`);
      assert.deepEqual(
        files.filter((file) => file.includes('node_modules')),
        [],
      );
    });
  }

  it('`loop list` loads SQLite’s addon and no other package file: the driver is in the bundle, no Temporal SDK', () => {
    const { files, stdout } = filesLoadedBy(['loop', 'list']);
    assert.match(stdout, /No loops/);
    assert.deepEqual(
      files.filter((file) => file.includes('node_modules')),
      ['node_modules/better-sqlite3/build/Release/better_sqlite3.node'],
    );
  });

  it('a command that reaches Temporal loads the client SDK from its own bundle, no SDK file from node_modules', async () => {
    const nowhere = `127.0.0.1:${await freePort()}`;
    const { files, stdout } = filesLoadedBy(['doctor'], { status: 1, env: { TEMPORAL_ADDRESS: nowhere } });
    assert.match(stdout, new RegExp(`NO temporal +${nowhere} namespace default \\(not answering: `));
    assert.deepEqual(
      files.filter((file) => file.includes('node_modules')),
      ['node_modules/better-sqlite3/build/Release/better_sqlite3.node'],
    );
  });

  it('the compiled code the build recorded, for help, the rest and the client SDK, is accepted by this node', () => {
    assert.equal(compileBundle(CLI_BUNDLE_PATH, CODE_CACHE_PATH).cachedDataRejected, false);
    assert.equal(compileBundle(CLI_BUNDLE_PATH, HELP_CODE_CACHE_PATH).cachedDataRejected, false);
    assert.equal(compileBundle(TEMPORAL_CLIENT_BUNDLE_PATH, TEMPORAL_CLIENT_CODE_CACHE_PATH).cachedDataRejected, false);
  });

  it('a stack trace through the bundle names the source files, not the bundle', () => {
    const script = [
      `const { loadBundle } = require(${JSON.stringify(path.join(PROJECT_ROOT, 'dist', 'src', 'cli', 'bundle', 'run.js'))});`,
      `try { loadBundle().buildProgram().exitOverride().configureOutput({ writeErr: () => {} }).parse(['node', 'canopy', '--no-such-flag']); }`,
      `catch (error) { console.log(error.stack); }`,
    ].join('\n');
    const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^CommanderError: error: unknown option '--no-such-flag'/, 'the error keeps its class name');
    assert.match(result.stdout, /at .*node_modules\/commander\/lib\/command\.js:\d+:\d+/);
    assert.doesNotMatch(result.stdout, /dist\/cli\/canopy\.js/);
  });

  it('a stack trace through the client SDK’s bundle names the SDK’s files', () => {
    const loader = JSON.stringify(compiledPath('cli', 'bundle', 'temporal-client.js'));
    const unknownEncoding = `client.defaultPayloadConverter.fromPayload({ metadata: { encoding: Buffer.from('bogus') } })`;
    const script = `const { client } = require(${loader}).temporalClientBundle(); try { ${unknownEncoding} } catch (error) { console.log(error.stack); }`;
    const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^ValueError: Unknown encoding: bogus/);
    assert.match(
      result.stdout,
      /at DefaultPayloadConverter\.fromPayload .*node_modules\/@temporalio\/common\/src\/converter\/payload-converter\.ts:\d+:\d+/,
    );
    assert.doesNotMatch(result.stdout, /dist\/cli\/temporal-client\.js/);
  });
});
