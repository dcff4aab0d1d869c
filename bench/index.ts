// `npm run bench`: engine overhead per node step, throughput with concurrent loops, and the worker's peak RSS.
// Everything runs on this machine: a private dev server, a `canopy worker` child process, temp workdirs.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openContext, type ClientContext } from '../src/client/context';
import { importLoop } from '../src/client/export-import-service';
import { startLoopRun, waitForLoopRun } from '../src/client/runs-service';
import { createSpec } from '../src/client/specs-service';
import { loadConfig } from '../src/config';
import { listNodeRuns } from '../src/store/node-runs-repository';
import { missingBinaryMessage, resolveTemporalBinary } from '../src/temporal/binary';
import { PROJECT_ROOT } from '../src/project';
import { startDevServer } from '../src/temporal/dev-server';
import { freePort } from '../src/temporal/free-port';

const CHAIN_LENGTH = 50;
const CONCURRENCY_LEVELS = [1, 5, 20];
const STEPS_PER_CONCURRENT_LOOP = 10;

function chainDocument(length: number) {
  const nodes = Array.from({ length }, (_, i) => ({
    name: `step-${i + 1}`,
    kind: 'check',
    position: i + 1,
    config: { command: 'true', timeout_minutes: 1 },
  }));
  const edges = nodes.slice(1).map((node, i) => ({ source: nodes[i].name, target: node.name, condition: 'pass' }));
  return { format_version: 1, name: `chain of ${length}`, description: '', nodes, edges, ensembles: [] };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function directSpawnMs(samples: number): number[] {
  return Array.from({ length: samples }, () => {
    const started = process.hrtime.bigint();
    spawnSync('bash', ['-c', 'true']);
    return Number(process.hrtime.bigint() - started) / 1e6;
  });
}

async function runChain(ctx: ClientContext, length: number): Promise<{ wallMs: number; gapsMs: number[] }> {
  const workdir = mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-'));
  const { loop_id } = await importLoop(ctx, chainDocument(length), { workdir });
  await createSpec(ctx, { loop_id, name: 'bench' });
  const started = Date.now();
  await startLoopRun(ctx, loop_id);
  await waitForLoopRun(ctx, loop_id);
  const wallMs = Date.now() - started;
  const runs = (await listNodeRuns(ctx.db, { loopId: loop_id, limit: 200 })).sort((a, b) =>
    a.node_name.localeCompare(b.node_name, 'en', { numeric: true }),
  );
  const starts = runs.map((run) => Date.parse(run.started_at));
  rmSync(workdir, { recursive: true, force: true });
  return { wallMs, gapsMs: starts.slice(1).map((start, i) => start - starts[i]) };
}

async function throughput(ctx: ClientContext, loops: number): Promise<number> {
  const ids: string[] = [];
  for (let i = 0; i < loops; i++) {
    const workdir = mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-'));
    const { loop_id } = await importLoop(ctx, chainDocument(STEPS_PER_CONCURRENT_LOOP), { workdir });
    await createSpec(ctx, { loop_id, name: 'bench' });
    ids.push(loop_id);
  }
  const started = Date.now();
  await Promise.all(ids.map((id) => startLoopRun(ctx, id)));
  await Promise.all(ids.map((id) => waitForLoopRun(ctx, id)));
  return (loops * STEPS_PER_CONCURRENT_LOOP) / ((Date.now() - started) / 1000);
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

async function main(): Promise<void> {
  const binary = resolveTemporalBinary();
  if (!binary) throw new Error(missingBinaryMessage());
  const home = mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-home-'));
  writeFileSync(path.join(home, 'config.json'), '{}');
  const address = `127.0.0.1:${await freePort()}`;
  const server = await startDevServer({ binary: binary.path, address, uiPort: null });
  const env = { ...process.env, CANOPY_HOME: home, TEMPORAL_ADDRESS: address, CANOPY_TASK_QUEUE: 'canopy-bench' };
  const worker = spawn(process.execPath, [path.join(PROJECT_ROOT, 'bin', 'canopy.js'), 'worker'], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise<void>((resolve) =>
    worker.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('Worker polling') && resolve()),
  );
  const ctx = await openContext(loadConfig(env));
  try {
    await runChain(ctx, 20); // warm-up: workflow cache, SQLite pages, Temporal task queues
    const spawnCost = directSpawnMs(CHAIN_LENGTH);
    const chain = await runChain(ctx, CHAIN_LENGTH);
    const spawnP50 = percentile(spawnCost, 50);
    const overhead = chain.gapsMs.map((gap) => gap - spawnP50);
    console.log(`(a) chain of ${CHAIN_LENGTH} checks running \`true\`: wall ${chain.wallMs} ms`);
    console.log(
      `    per step: p50 ${percentile(chain.gapsMs, 50).toFixed(1)} ms, p95 ${percentile(chain.gapsMs, 95).toFixed(1)} ms (node start to next node start)`,
    );
    console.log(`    direct \`bash -c true\` spawn: p50 ${spawnP50.toFixed(1)} ms, p95 ${percentile(spawnCost, 95).toFixed(1)} ms`);
    console.log(
      `    engine overhead per step (step minus direct spawn p50): p50 ${percentile(overhead, 50).toFixed(1)} ms, p95 ${percentile(overhead, 95).toFixed(1)} ms`,
    );
    for (const loops of CONCURRENCY_LEVELS) {
      console.log(
        `(b) ${String(loops).padStart(2)} loop(s) at once on ${loops} workdir(s), ${STEPS_PER_CONCURRENT_LOOP} steps each: ${(await throughput(ctx, loops)).toFixed(1)} node steps/s`,
      );
    }
    console.log(`(c) worker peak RSS: ${peakRssMb(worker.pid!).toFixed(0)} MB`);
  } finally {
    worker.kill('SIGTERM');
    await ctx.close();
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
