// The CLI end to end as a real child process (run after the build: bin/canopy.js loads dist/).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../src/project';
import { directoryIn, SEED_EXAMPLE_PATH, tempDir } from '../helpers/store';

const CANOPY_BIN = path.join(PROJECT_ROOT, 'bin', 'canopy.js');

describe('canopy loop import (CLI)', () => {
  let home: string;
  beforeEach(() => {
    home = tempDir('canopy-cli-home-');
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
  });

  /** Runs canopy against this test's home only, whatever store the environment points at. */
  function canopy(...args: string[]) {
    return spawnSync(process.execPath, [CANOPY_BIN, ...args], {
      encoding: 'utf8',
      env: { ...process.env, CANOPY_HOME: home, CANOPY_DATABASE_URL: '' },
    });
  }

  it('prints exactly loop_id, name and nodes_missing_platform with --json, and the loop is stored', () => {
    const workdir = directoryIn(home);
    const imported = canopy('loop', 'import', SEED_EXAMPLE_PATH, '--workdir', workdir, '--json');
    assert.equal(imported.status, 0, imported.stderr);
    const printed = JSON.parse(imported.stdout);
    assert.deepEqual(Object.keys(printed), ['loop_id', 'name', 'nodes_missing_platform']);
    assert.match(printed.loop_id, /^loop_/);
    assert.equal(printed.name, 'implement-and-review');
    assert.deepEqual(printed.nodes_missing_platform, ['implementer', 'committer', 'reviewers/member-1', 'reviewers/member-2']);

    const got = canopy('loop', 'get', printed.loop_id, '--json');
    assert.equal(got.status, 0, got.stderr);
    assert.equal(JSON.parse(got.stdout).workdir, workdir);
  });

  it('refuses a file that is not JSON: non-zero exit, a JSON error on stderr, no loop', () => {
    const file = path.join(home, 'broken.json');
    writeFileSync(file, '{"format_version": 1,');
    const imported = canopy('loop', 'import', file, '--json');
    assert.notEqual(imported.status, 0);
    assert.equal(imported.stdout, '');
    const { error } = JSON.parse(imported.stderr);
    assert.equal(error.code, 'invalid_input');
    assert.deepEqual(
      error.issues.map((issue: { field: string }) => issue.field),
      ['(document)'],
    );

    const listed = canopy('loop', 'list', '--all', '--json');
    assert.deepEqual(JSON.parse(listed.stdout), []);
  });
});
