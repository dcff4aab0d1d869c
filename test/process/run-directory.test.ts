// A run file the disk has no room for: refused naming the file and ENOSPC, and what was written of
// it given back, so the node's failure can still be recorded on that disk.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { it } from 'node:test';
import { bytesFree } from '../../src/process/disk-space';
import { openRunDirectory, writeRunFile } from '../../src/process/run-directory';
import { onTmpfs, tmpfsUnavailable } from '../helpers/tmpfs';

it('refuses a run file larger than the space left, naming it and ENOSPC, and gives back what it took', { skip: tmpfsUnavailable() }, () =>
  onTmpfs('1m', (home) => {
    const dir = openRunDirectory(home, 'nrun_1');
    const free = bytesFree(home)!;
    assert.throws(
      () => writeRunFile(dir, 'previous_output.txt', 'o'.repeat(2 * 1024 * 1024)),
      (error: Error) =>
        error.name === 'RunDirectoryError' &&
        error.message === `Could not write the run file ${dir}/previous_output.txt: ENOSPC (no space left on device)`,
    );
    assert.equal(existsSync(`${dir}/previous_output.txt`), false);
    assert.equal(bytesFree(home), free);
    return Promise.resolve();
  }),
);
