// Preloaded by run-all into every test file's process (node's test runner passes its own --require
// on to them): as the process exits, appends the file's wall time since the process started and the
// CPU of its own threads (its child processes not counted) to $CANOPY_TEST_CLOCK, one JSON line.
// A test's reported duration would leave out the file's start (loading modules, opening harnesses),
// and name the helper that declared a suite rather than the file.
const { appendFileSync } = require('node:fs');
const { performance } = require('node:perf_hooks');

const file = process.argv[1];
const clock = process.env.CANOPY_TEST_CLOCK;
// The test runner itself (started with --test, which it does not pass on) names its first file too.
const testFile = file?.endsWith('.test.js') && !process.execArgv.includes('--test');
if (clock && testFile) {
  process.once('exit', () => {
    const cpu = process.cpuUsage();
    appendFileSync(clock, `${JSON.stringify({ file, wallMs: performance.now(), cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
  });
}
