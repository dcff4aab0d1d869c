// `npm test`: node's test runner over every compiled test file, in batches, each against a headless Temporal dev server of its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FileClock } from './file-clock';
import { startTestServer, type TestServer } from './helpers/dev-server';
import { descendantsOf } from './helpers/processes';
import { watchServer } from './helpers/server-watch';
import { dropTestSchemas } from './helpers/store-dialects';

/** Needs Go and PostgreSQL and brings its own Temporal server: `npm run test:cluster` runs it. */
const CLUSTER_SUITE = path.join(__dirname, 'cluster');

/** Runs the worker image's build steps in a clean copy, minutes long: only when named (`npm run test:image`). */
const IMAGE_SUITE = path.join(__dirname, 'image');

/** Drives chromium against real servers: only when named (`npm run test:web`), which keeps `npm test` to its minutes. */
const WEB_SUITE = path.join(__dirname, 'web');

/**
 * Files that keep both cores busy for tens of seconds (the fleet starts 100 `canopy` processes at once):
 * they run before the others, one at a time, because beside them a worker misses its heartbeats and an
 * agent CLI takes many times its usual time to start.
 */
const WHOLE_MACHINE = [path.join(__dirname, 'cli', 'fleet.test.js')];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (full === CLUSTER_SUITE) return [];
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.js') ? [full] : [];
  });
}

/**
 * How many test files run side by side (CANOPY_TEST_CONCURRENCY; default four on two cores: most of a
 * test's time is spent waiting on processes and the server, and four keep both cores about 85% busy).
 * Each has its own process, task queues and home against the one dev server.
 */
function concurrency(): number {
  return Number(process.env.CANOPY_TEST_CONCURRENCY) || 4;
}

/** The ten test files that took longest from their process's start to its exit, with the CPU each and its children took. */
function printSlowest(clockFile: string): void {
  const clocks = existsSync(clockFile)
    ? readFileSync(clockFile, 'utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as FileClock)
    : [];
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1).padStart(6)} s`;
  const total = (key: 'cpuMs' | 'childrenCpuMs') => seconds(clocks.reduce((sum, clock) => sum + clock[key], 0)).trim();
  console.log("# the ten slowest test files: wall time, CPU of the file's process, CPU of the child processes it saw end");
  console.log(`# (all ${clocks.length} files: ${total('cpuMs')} of CPU in their processes, ${total('childrenCpuMs')} in their children)`);
  for (const clock of clocks.sort((a, b) => b.wallMs - a.wallMs).slice(0, 10))
    console.log(
      `#   ${seconds(clock.wallMs)}  ${seconds(clock.cpuMs)}  ${seconds(clock.childrenCpuMs)}  ${path.relative(__dirname, clock.file)}`,
    );
}

/** node's test runner over `files`, `concurrency` at a time, printing TAP. */
function startTests(files: string[], concurrency: number, env: NodeJS.ProcessEnv): ChildProcess {
  // CANOPY_TEST_NAME narrows the run to the tests whose names match it (node's --test-name-pattern).
  const names = process.env.CANOPY_TEST_NAME ? ['--test-name-pattern', process.env.CANOPY_TEST_NAME] : [];
  const reporters = ['--test-reporter=tap', '--test-reporter-destination=stdout'];
  const clock = ['--require', path.join(__dirname, 'file-clock.js')];
  return spawn(process.execPath, [...clock, '--test', `--test-concurrency=${concurrency}`, ...reporters, ...names, ...files], {
    stdio: 'inherit',
    env,
  });
}

function exitCodeOf(child: ChildProcess): Promise<number> {
  return new Promise<number>((resolve) => child.once('exit', (exit) => resolve(exit ?? 1)));
}

/** The end of the server's log (its warnings and errors), for a batch that failed. */
function printServerLog(server: TestServer): void {
  console.log("# The end of the Temporal server's log:");
  for (const line of readFileSync(server.logFile, 'utf8').trimEnd().split('\n').slice(-40)) console.log(`#   ${line}`);
}

/** Says why the batch ends and kills the test runner with every process under it. */
function endBatch(why: string, runner: ChildProcess): void {
  console.log(`# ${why}; this batch of test files ends here.`);
  for (const pid of runner.pid ? [runner.pid, ...descendantsOf(runner.pid)] : []) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // It ended meanwhile.
    }
  }
}

/**
 * Runs one batch of test files against a dev server of its own, so that a batch that breaks its server
 * (the fleet, starving it) leaves the next a working one; a server that stops serving ends its batch
 * instead of leaving every test in it to wait out its timeouts. Resolves with the runner's exit code.
 */
async function runBatch(files: string[], concurrency: number, clockFile: string): Promise<number> {
  const server = await startTestServer();
  console.log(`# Temporal dev server ${server.binary} on ${server.address} (ready in ${server.readyMs} ms)`);
  const env = {
    ...process.env,
    CANOPY_TEST_TEMPORAL_ADDRESS: server.address,
    CANOPY_TEST_TEMPORAL_BIN: server.binary,
    CANOPY_TEST_CLOCK: clockFile,
  };
  const runner = startTests(files, concurrency, env);
  const watch = await watchServer(server.address, (why) => endBatch(why, runner));
  try {
    const exit = await exitCodeOf(runner);
    if (exit !== 0) printServerLog(server);
    return exit;
  } finally {
    await watch.stop();
    await server.stop();
  }
}

async function main(): Promise<number> {
  await dropTestSchemas();
  try {
    const filter = process.argv.slice(2);
    const files = testFiles(__dirname)
      .filter((file) =>
        filter.length === 0 ? !file.startsWith(IMAGE_SUITE) && !file.startsWith(WEB_SUITE) : filter.some((f) => file.includes(f)),
      )
      .sort();
    const outDir = mkdtempSync(path.join(os.tmpdir(), 'canopy-test-run-'));
    const alone = files.filter((file) => WHOLE_MACHINE.includes(file));
    const together = files.filter((file) => !WHOLE_MACHINE.includes(file));
    const batches = [
      { files: alone, concurrency: 1 },
      { files: together, concurrency: concurrency() },
    ].filter((b) => b.files.length > 0);
    const clockFile = path.join(outDir, 'file-clocks.jsonl');
    let code = 0;
    for (const batch of batches) {
      const exit = await runBatch(batch.files, batch.concurrency, clockFile);
      code ||= exit;
    }
    printSlowest(clockFile);
    return code;
  } finally {
    await dropTestSchemas();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
