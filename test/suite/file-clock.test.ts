// The clock run-all preloads into node's test runner: a test file whose suite a helper declares is
// named as the file, with the CPU of a child it waited for, and the runner records nothing of its own.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { FileClock } from '../file-clock';
import { tempDir } from '../helpers/store';

const CLOCK = path.join(__dirname, '..', 'file-clock.js');

/** A child that spins until it has used this much CPU, then writes what it used. */
const CHILD_CPU_MS = 200;

describe('the file clock', () => {
  it('names the test file, not the helper that declared its suite, and counts the CPU of the child it waited for', () => {
    const dir = tempDir('canopy-file-clock-');
    const childReport = path.join(dir, 'child-cpu.json');
    const spin = `const used = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
      while (used() < ${CHILD_CPU_MS});
      require('node:fs').writeFileSync(${JSON.stringify(childReport)}, JSON.stringify(used()));`;
    writeFileSync(
      path.join(dir, 'suite-helper.js'),
      `const { describe, it } = require('node:test');
      const { spawnSync } = require('node:child_process');
      exports.declare = () => describe('declared in a helper', () => {
        it('waits for a busy child', () => { spawnSync(process.execPath, ['-e', ${JSON.stringify(spin)}]); });
      });`,
    );
    const testFile = path.join(dir, 'sample.test.js');
    writeFileSync(testFile, "require('./suite-helper').declare();\n");
    const clockFile = path.join(dir, 'clocks.jsonl');

    // Without the context this file runs in, which would have the runner report to it instead of running the file in a process.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const run = spawnSync(process.execPath, ['--require', CLOCK, '--test', testFile], {
      env: { ...env, CANOPY_TEST_CLOCK: clockFile },
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stdout + run.stderr);

    const clocks = readFileSync(clockFile, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as FileClock);
    assert.deepEqual(
      clocks.map((clock) => clock.file),
      [testFile],
    );
    const [clock] = clocks;
    const childCpuMs = JSON.parse(readFileSync(childReport, 'utf8')) as number;
    // /proc counts user and system time each in whole ticks of 10 ms.
    assert.ok(clock.childrenCpuMs >= childCpuMs - 20, `children ${clock.childrenCpuMs} ms, the child said ${childCpuMs} ms`);
    assert.ok(clock.cpuMs > 0 && clock.wallMs >= childCpuMs, JSON.stringify(clock));
  });
});
