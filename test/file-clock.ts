// Preloaded by run-all into every test file's process (node's test runner passes its own --require
// on to them): as the process exits, appends the file's wall time since the process started, the CPU
// of its own threads and that of the child processes it saw end (`canopy` commands and daemons, with
// whatever of theirs they saw end) to $CANOPY_TEST_CLOCK, one JSON line. Agent CLIs run under a
// worker's launcher, which outlives the worker's process and so is never counted there.
// A test's reported duration would leave out the file's start (loading modules, opening harnesses),
// and name the helper that declared a suite rather than the file.
import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { statFields } from './helpers/processes';

/** The kernel's unit of /proc CPU times (USER_HZ), 100 on Linux. */
const TICKS_PER_SECOND = 100;

export interface FileClock {
  file: string;
  wallMs: number;
  cpuMs: number;
  childrenCpuMs: number;
}

function childrenCpuMs(): number {
  const [cutime, cstime] = statFields(process.pid).slice(13, 15).map(Number);
  return ((cutime + cstime) * 1000) / TICKS_PER_SECOND;
}

const file = process.argv[1];
const clock = process.env.CANOPY_TEST_CLOCK;
// The test runner itself (started with --test, which it does not pass on) names its first file too.
const testFile = file?.endsWith('.test.js') && !process.execArgv.includes('--test');
if (clock && testFile) {
  process.once('exit', () => {
    const cpu = process.cpuUsage();
    const figures: FileClock = { file, wallMs: performance.now(), cpuMs: (cpu.user + cpu.system) / 1000, childrenCpuMs: childrenCpuMs() };
    appendFileSync(clock, `${JSON.stringify(figures)}\n`);
  });
}
