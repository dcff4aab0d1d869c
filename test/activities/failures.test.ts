// Which activity errors fail a node at once, which are retried, and when retrying stops.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { it } from 'node:test';
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { z } from 'zod';
import { deterministicFailure, nodeFailure } from '../../src/activities/failures';
import { CanopyError } from '../../src/domain/errors';
import { RunDirectoryError } from '../../src/process/run-directory';

const errnoError = (code: string) => Object.assign(new Error(`spawn ${code}`), { code });

it('classifies lasting errors by kind and leaves transient ones to retries', () => {
  const kinds = (errors: unknown[]) => errors.map((error) => deterministicFailure(error)?.kind ?? null);
  assert.deepEqual(kinds([errnoError('E2BIG'), errnoError('ENOTDIR'), errnoError('EACCES'), errnoError('ERR_INVALID_ARG_VALUE')]), [
    'spawn_error',
    'spawn_error',
    'spawn_error',
    'spawn_error',
  ]);
  assert.deepEqual(kinds([new CanopyError('invalid_input', 'config.json is invalid'), z.string().safeParse(1).error]), [
    'invalid_config',
    'invalid_config',
  ]);
  assert.deepEqual(kinds([errnoError('SQLITE_CONSTRAINT_NOTNULL'), errnoError('23502')]), ['store_constraint', 'store_constraint']);
  assert.deepEqual(kinds([new Error('socket hang up'), errnoError('ECONNRESET'), errnoError('SQLITE_BUSY'), new CancelledFailure('x')]), [
    null,
    null,
    null,
    null,
  ]);
  assert.equal(deterministicFailure(ApplicationFailure.nonRetryable('gone', 'missing'))?.reason, 'gone');
  assert.equal(deterministicFailure(ApplicationFailure.retryable('again')), null);
});

it('fails a node at once on a full disk, saying where, and leaves a disk that refuses otherwise to infra retries', () => {
  const full = deterministicFailure(
    Object.assign(new Error("ENOSPC: no space left on device, open '/h/runs/nrun_1/process.json.part'"), { code: 'ENOSPC' }),
  );
  assert.equal(full?.kind, 'disk_full');
  assert.match(full?.reason ?? '', /^ENOSPC: no space left on device, open '\/h\/runs\/nrun_1\/process\.json\.part'\. Free space there/);
  const file = '/h/runs/nrun_1/previous_output.txt';
  assert.deepEqual(
    ['ENOSPC', 'EPERM', 'EROFS'].map((code) => deterministicFailure(new RunDirectoryError('write the run file', file, code))?.kind),
    ['disk_full', 'infra_disk', 'infra_disk'],
  );
  assert.match(
    deterministicFailure(new RunDirectoryError('write the run file', file, 'ENOSPC'))?.reason ?? '',
    /^Could not write the run file \/h\/runs\/nrun_1\/previous_output\.txt: ENOSPC \(no space left on device\)\. Free space there/,
  );
});

it('recognises what Node throws for a NUL byte in argv', () => {
  const thrown = (() => {
    try {
      spawnSync('echo', ['a\u0000b']);
    } catch (error) {
      return error;
    }
  })();
  assert.equal(deterministicFailure(thrown)?.kind, 'spawn_error');
});

it('fails a node on the last attempt of a transient error, never on a cancellation', () => {
  const transient = new Error('socket hang up');
  assert.equal(nodeFailure(transient, 4, 5), null);
  assert.deepEqual(nodeFailure(transient, 5, 5), { kind: 'infra', reason: 'Gave up after 5 attempts: socket hang up' });
  assert.equal(nodeFailure(new CancelledFailure('stop'), 5, 5), null);
  assert.equal(nodeFailure(errnoError('E2BIG'), 1, 5)?.kind, 'spawn_error');
});
