// What `canopy --version` and `canopy --help` load: commander and the command definitions, never
// what the commands work with (zod, kysely, SQLite, Temporal), which each action loads when it runs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CLI_BUNDLE_PATH, CODE_CACHE_PATH, HELP_CODE_CACHE_PATH } from '../../src/cli/bundle/paths';
import { CANOPY_BIN, packageVersion, PROJECT_ROOT } from '../../src/project';
import { tempDir } from '../helpers/store';

const CLI = path.join(PROJECT_ROOT, 'dist', 'src', 'cli', 'index.js');
const SOURCES = path.join(PROJECT_ROOT, 'dist', 'src');

/** Modules outside cli/ that a command definition may load: plain constants and file helpers. */
const LIGHT = [
  'project',
  'domain/errors',
  'domain/vocabulary',
  'node-kinds/catalogue',
  'graph/templates',
  'user-files',
  'private-files',
  'process/',
  'mcp/operator-token',
];

/**
 * Runs `canopy <args>` through `start` (a line of code that starts the CLI) in a process of its own, and
 * says what it printed, the modules (and Node's own) it had loaded when it exited and the files it read
 * with readFileSync.
 */
function runRecorded(args: string[], start: string): { modules: string[]; builtins: string[]; read: string[]; stdout: string } {
  const script = [
    `const fs = require('node:fs');`,
    `const readFileSync = fs.readFileSync;`,
    `const read = [];`,
    `fs.readFileSync = (file, ...rest) => (read.push(String(file)), readFileSync(file, ...rest));`,
    `process.argv = [process.argv[0], 'canopy', ...${JSON.stringify(args)}];`,
    `const builtins = () => process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13));`,
    `process.on('exit', () => process.stderr.write('\\nRECORDED' + JSON.stringify({ modules: Object.keys(require.cache), builtins: builtins(), read })));`,
    start,
  ].join('\n');
  const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, CANOPY_HOME: tempDir() } });
  assert.equal(result.status, 0, result.stderr);
  const recorded = JSON.parse(result.stderr.split('RECORDED').pop()!) as { modules: string[]; builtins: string[]; read: string[] };
  return { ...recorded, stdout: result.stdout };
}

/** Every module the CLI, run from its compiled modules, had loaded when it exited after `args`. */
const modulesLoadedBy = (args: string[]) => runRecorded(args, `require(${JSON.stringify(CLI)}).main();`);

/** What `canopy <args>`, run as `bin/canopy.js` runs it, printed and read. */
const filesReadBy = (args: string[]) => runRecorded(args, `require(${JSON.stringify(CANOPY_BIN)});`);

describe('CLI start-up', () => {
  it('canopy --version answers before reading the bundle; --help reads it with the compiled code of help alone', () => {
    const version = filesReadBy(['--version']);
    assert.equal(version.stdout, `${packageVersion()}\n`);
    assert.ok(!version.read.includes(CLI_BUNDLE_PATH), version.read.join(', '));
    const help = filesReadBy(['--help']);
    assert.match(help.stdout, /^Usage: canopy/);
    assert.ok(help.read.includes(CLI_BUNDLE_PATH), help.read.join(', '));
    assert.ok(help.read.includes(HELP_CODE_CACHE_PATH) && !help.read.includes(CODE_CACHE_PATH), help.read.join(', '));
    const list = filesReadBy(['loop', 'list']);
    assert.ok(list.read.includes(CODE_CACHE_PATH) && !list.read.includes(HELP_CODE_CACHE_PATH), list.read.join(', '));
  });

  for (const args of [['--help'], ['loop', 'list']]) {
    it(`canopy ${args.join(' ')}, from the bundle, leaves Node's heavier modules unloaded`, () => {
      const { builtins, read } = filesReadBy(args);
      assert.ok(read.includes(CLI_BUNDLE_PATH) && builtins.includes('vm'), 'the bundle ran');
      assert.deepEqual(
        builtins.filter((name) => ['child_process', 'crypto', 'fs/promises', 'readline'].includes(name)),
        [],
      );
    });
  }

  for (const args of [['--version'], ['--help'], ['loop', '--help']]) {
    it(`canopy ${args.join(' ')} loads commander and the command definitions only`, () => {
      const { modules, stdout } = modulesLoadedBy(args);
      assert.ok(stdout.length > 0, 'it printed');
      const packages = [...new Set(modules.flatMap((file) => /node_modules\/((@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? []))];
      assert.deepEqual(packages, ['commander']);
      const own = modules.filter((file) => file.startsWith(SOURCES)).map((file) => path.relative(SOURCES, file));
      const heavy = own.filter(
        (file) => !file.startsWith('cli/') || file.startsWith('cli/text/') || file.startsWith('cli/watch/') || file.startsWith('cli/tui/'),
      );
      assert.deepEqual(
        heavy.filter((file) => !LIGHT.some((light) => file.startsWith(light))),
        [],
        'a command definition loaded what its action works with',
      );
    });
  }

  it('loads a command’s services when it runs: `loop list` reads the store', () => {
    const { modules, stdout } = modulesLoadedBy(['loop', 'list']);
    assert.match(stdout, /No loops/);
    assert.ok(modules.some((file) => file.endsWith(path.join('client', 'loops-service.js'))));
    assert.ok(!modules.some((file) => file.endsWith(path.join('client', 'specs-service.js'))), 'another command’s service stayed unloaded');
  });
});
