// The report an agent keeps in its run directory: replaced whole, read back as written, and a file the
// agent wrote over refused with its name instead of read as a report.
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { keepBlocker, keepReport, readKeptBlocker, readKeptReport, sameReport } from '../../src/process/run-reports';
import { tempDir } from '../helpers/store';

describe('reports kept in a run directory', () => {
  it('reads back the newest report and blocker, each replaced whole with nothing left aside', () => {
    const dir = tempDir();
    assert.equal(readKeptReport(dir), null);
    assert.equal(readKeptBlocker(dir), null);
    keepReport(dir, { status: 'pass', output: 'first' });
    keepReport(dir, { status: 'fail', output: null });
    keepBlocker(dir, { reason: 'needs a key', delivered: false });
    assert.deepEqual(readKeptReport(dir), { status: 'fail', output: null });
    assert.deepEqual(readKeptBlocker(dir), { reason: 'needs a key', delivered: false });
    assert.deepEqual(readdirSync(dir).sort(), ['blocker.json', 'report.json']);
  });

  it('refuses a file that is not a report, naming it', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'report.json'), 'pass');
    assert.throws(() => readKeptReport(dir), new RegExp(`${path.join(dir, 'report.json')} is not JSON`));
    writeFileSync(path.join(dir, 'report.json'), JSON.stringify({ status: 'passed', output: null }));
    assert.throws(() => readKeptReport(dir), /report\.json is not a report canopy wrote/);
    writeFileSync(path.join(dir, 'blocker.json'), JSON.stringify({ reason: '', delivered: false }));
    assert.throws(() => readKeptBlocker(dir), /blocker\.json is not a report canopy wrote/);
  });

  it('tells a report from a newer one that replaced it', () => {
    assert.ok(sameReport({ status: 'fail', output: 'x' }, { status: 'fail', output: 'x' }));
    assert.ok(!sameReport({ status: 'fail', output: 'x' }, { status: 'fail', output: 'y' }));
    assert.ok(!sameReport(null, { status: 'pass', output: null }));
  });
});
