// `npm test`: one headless Temporal dev server for the whole run, then node's test runner over every compiled test file.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { missingBinaryMessage, resolveTemporalBinary } from '../src/temporal/binary';
import { startDevServer } from '../src/temporal/dev-server';
import { freePort } from '../src/temporal/free-port';

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.js') ? [full] : [];
  });
}

async function main(): Promise<number> {
  const binary = resolveTemporalBinary();
  if (!binary) {
    console.error(missingBinaryMessage());
    return 1;
  }
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'canopy-test-server-'));
  const address = `127.0.0.1:${await freePort()}`;
  const started = Date.now();
  const server = await startDevServer({ binary: binary.path, address, uiPort: null, logFile: path.join(scratch, 'temporal.log') });
  console.log(`# Temporal dev server ${binary.path} on ${address} (ready in ${Date.now() - started} ms)`);
  try {
    const filter = process.argv.slice(2);
    const files = testFiles(__dirname)
      .filter((file) => filter.length === 0 || filter.some((f) => file.includes(f)))
      .sort();
    const runner = spawn(process.execPath, ['--test', ...files], {
      stdio: 'inherit',
      env: { ...process.env, CANOPY_TEST_TEMPORAL_ADDRESS: address, CANOPY_TEST_TEMPORAL_BIN: binary.path },
    });
    return await new Promise<number>((resolve) => runner.once('exit', (code) => resolve(code ?? 1)));
  } finally {
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
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
