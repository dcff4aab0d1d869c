// Recovery figures: what a worker crash costs a running agent, and what the worker holds in memory
// per concurrent loop. Workers here are `canopy worker` child processes, killed with SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClientContext } from '../src/client/context';
import { importLoop } from '../src/client/export-import-service';
import { startLoopRun, waitForLoopRun } from '../src/client/runs-service';
import { createSpec } from '../src/client/specs-service';
import { CANOPY_BIN } from '../src/project';
import { livePidsWhere } from '../test/helpers/running-processes';
import { listNodeRuns } from '../src/store/node-runs-repository';

/** How long the stand-in agent works, in seconds. */
const AGENT_SECONDS = 8;

export interface CrashRecovery {
  /** Agent time spent on attempts whose work was thrown away, in seconds. */
  agentSecondsLost: number;
  /** From the new worker's spawn to the node's outcome on record, in ms. */
  restartToRecordedMs: number;
  /** From the agent's exit to the node's outcome on record, in ms. */
  exitToRecordedMs: number;
}

export async function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const worker = spawn(process.execPath, [CANOPY_BIN, 'worker'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise<void>((resolve) =>
    worker.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('Worker polling') && resolve()),
  );
  return worker;
}

async function stopWorker(worker: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.kill(signal);
  await exited;
}

/** A loop of one check that works AGENT_SECONDS and logs each start and its end to `log`. */
async function agentLoop(ctx: ClientContext, log: string, workdirs: string[]): Promise<string> {
  const workdir = mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-recovery-'));
  workdirs.push(workdir);
  const command = `echo "start $(date +%s%N)" >> "${log}"; sleep ${AGENT_SECONDS}; echo "end $(date +%s%N)" >> "${log}"`;
  const document = {
    format_version: 1,
    name: 'crash recovery',
    description: '',
    nodes: [{ name: 'agent', kind: 'check', position: 1, config: { command, timeout_minutes: 5 } }],
    edges: [],
    ensembles: [],
  };
  const { loop_id } = await importLoop(ctx, document, { workdir });
  await createSpec(ctx, { loop_id, name: 'bench' });
  return loop_id;
}

/** Kills the worker two seconds into the agent's work, starts another, and times the recovery. */
export async function crashRecovery(ctx: ClientContext, env: NodeJS.ProcessEnv, workdirs: string[]): Promise<CrashRecovery> {
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-log-'));
  workdirs.push(logDir);
  const log = path.join(logDir, 'agent.log');
  let worker = await startWorker(env);
  const loopId = await agentLoop(ctx, log, workdirs);
  await startLoopRun(ctx, loopId);
  while (!existsSync(log)) await delay(50);
  await delay(2_000);
  await stopWorker(worker, 'SIGKILL');
  const killedAt = Date.now();
  const restartedAt = Date.now();
  worker = await startWorker(env);
  try {
    const result = await waitForLoopRun(ctx, loopId);
    if (result.status !== 'completed') throw new Error(`recovery loop ${result.status}: ${result.reason}`);
    const [run] = await listNodeRuns(ctx.db, { loopId });
    const events = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const [kind, nanos] = line.split(' ');
        return { kind, at: Number(BigInt(nanos) / 1_000_000n) };
      });
    const starts = events.filter((e) => e.kind === 'start');
    const exitedAt = events.filter((e) => e.kind === 'end').at(-1)!.at;
    // Every start but the last one was work thrown away, up to the crash that ended it.
    const agentSecondsLost = starts.slice(0, -1).reduce((sum, start) => sum + (killedAt - start.at) / 1000, 0);
    const recordedAt = Date.parse(run.ended_at!);
    return { agentSecondsLost, restartToRecordedMs: recordedAt - restartedAt, exitToRecordedMs: recordedAt - exitedAt };
  } finally {
    await stopWorker(worker, 'SIGTERM');
  }
}

export interface LoadFootprint {
  workerRssMb: number;
  /** The supervisors' resident memory, summed, per running node. */
  supervisorRssKb: number;
}

/** The worker's resident memory while `loops` loops each run a node at once, at its highest. */
export async function footprintAt(ctx: ClientContext, env: NodeJS.ProcessEnv, loops: number, workdirs: string[]): Promise<LoadFootprint> {
  const worker = await startWorker(env);
  try {
    const ids: string[] = [];
    for (let i = 0; i < loops; i++) {
      const workdir = mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-load-'));
      workdirs.push(workdir);
      const document = {
        format_version: 1,
        name: `load ${i}`,
        description: '',
        nodes: [{ name: 'wait', kind: 'check', position: 1, config: { command: 'sleep 6', timeout_minutes: 5 } }],
        edges: [],
        ensembles: [],
      };
      const { loop_id } = await importLoop(ctx, document, { workdir });
      await createSpec(ctx, { loop_id, name: 'bench' });
      ids.push(loop_id);
    }
    await Promise.all(ids.map((id) => startLoopRun(ctx, id)));
    let workerRssMb = 0;
    let supervisorRssKb = 0;
    const finished = Promise.all(ids.map((id) => waitForLoopRun(ctx, id)));
    let done = false;
    void finished.then(() => (done = true));
    while (!done) {
      workerRssMb = Math.max(workerRssMb, rssKb(worker.pid!) / 1024);
      const supervisors = supervisorPids();
      if (supervisors.length === loops) {
        supervisorRssKb = Math.max(supervisorRssKb, supervisors.reduce((sum, pid) => sum + rssKb(pid), 0) / loops);
      }
      await delay(200);
    }
    await finished;
    return { workerRssMb, supervisorRssKb };
  } finally {
    await stopWorker(worker, 'SIGTERM');
  }
}

export function supervisorPids(): number[] {
  return livePidsWhere((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('canopy-supervisor'));
}

export function rssKb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
