// `npm test`: one headless Temporal dev server for the whole run, then node's test runner over every compiled test file.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { startTestServer } from './helpers/dev-server';

/** Needs Go and PostgreSQL and brings its own Temporal server: `npm run test:cluster` runs it. */
const CLUSTER_SUITE = path.join(__dirname, 'cluster');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (full === CLUSTER_SUITE) return [];
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.js') ? [full] : [];
  });
}

async function main(): Promise<number> {
  const server = await startTestServer();
  console.log(`# Temporal dev server ${server.binary} on ${server.address} (ready in ${server.readyMs} ms)`);
  try {
    const filter = process.argv.slice(2);
    const files = testFiles(__dirname)
      .filter((file) => filter.length === 0 || filter.some((f) => file.includes(f)))
      .sort();
    // CANOPY_TEST_NAME narrows the run to the tests whose names match it (node's --test-name-pattern).
    const names = process.env.CANOPY_TEST_NAME ? ['--test-name-pattern', process.env.CANOPY_TEST_NAME] : [];
    const runner = spawn(process.execPath, ['--test', ...names, ...files], {
      stdio: 'inherit',
      env: { ...process.env, CANOPY_TEST_TEMPORAL_ADDRESS: server.address, CANOPY_TEST_TEMPORAL_BIN: server.binary },
    });
    return await new Promise<number>((resolve) => runner.once('exit', (code) => resolve(code ?? 1)));
  } finally {
    await server.stop();
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
