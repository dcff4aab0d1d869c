// The CLI as users run it: one bundled script, V8's compiled code for it from the build, and stack
// traces that still name the sources.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CODE_CACHE_PATH, HELP_CODE_CACHE_PATH } from '../../src/cli/bundle/paths';
import { compileBundle } from '../../src/cli/bundle/run';
import { CANOPY_BIN, PROJECT_ROOT } from '../../src/project';
import { tempDir } from '../helpers/store';

/** The files the CLI process had loaded by require when it exited after `args` (the bundle itself is not one). */
function filesLoadedBy(args: string[]): { files: string[]; stdout: string } {
  const recorder = `process.on('exit', () => process.stderr.write('\\nLOADED' + JSON.stringify(Object.keys(require.cache))));`;
  const result = spawnSync(
    process.execPath,
    ['-e', `${recorder}\nprocess.argv.splice(1, 0, 'canopy'); require(${JSON.stringify(CANOPY_BIN)});`, '--', ...args],
    {
      encoding: 'utf8',
      env: { ...process.env, CANOPY_HOME: tempDir() },
    },
  );
  assert.equal(result.status, 0, result.stderr);
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

  it('the compiled code the build recorded, for help and for the rest, is accepted by this node', () => {
    assert.equal(compileBundle(CODE_CACHE_PATH).cachedDataRejected, false);
    assert.equal(compileBundle(HELP_CODE_CACHE_PATH).cachedDataRejected, false);
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
});
