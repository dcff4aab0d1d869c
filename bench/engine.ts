// Engine figures: the time a node step takes, what of it is the engine's own (the step minus a
// plain spawn of the same command, measured in the same conditions), and throughput.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClientContext } from '../src/client/context';
import { importLoop } from '../src/client/export-import-service';
import { startLoopRun, waitForLoopRun } from '../src/client/runs-service';
import { createSpec } from '../src/client/specs-service';
import type { LoopSettings } from '../src/domain/loop';
import { listNodeRuns } from '../src/store/node-runs-repository';
import type { Floor } from './floor';
import { spread } from './stats';

function chainDocument(length: number, settings: LoopSettings) {
  const nodes = Array.from({ length }, (_, i) => ({
    name: `step-${i + 1}`,
    kind: 'check',
    position: i + 1,
    config: { command: 'true', timeout_minutes: 1 },
  }));
  const edges = nodes.slice(1).map((node, i) => ({ source: nodes[i].name, target: node.name, condition: 'pass' }));
  return { format_version: 2, name: `chain of ${length}`, description: '', settings, nodes, edges, ensembles: [] };
}

/** A fresh git repository with one commit, as the workdir a user's loop runs in: every step then reads HEAD and the tree. */
function repositoryWorkdir(): string {
  const workdir = mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-'));
  const identity = ['-c', 'user.email=bench@canopy.invalid', '-c', 'user.name=canopy bench'];
  execFileSync('git', ['init', '-q'], { cwd: workdir });
  execFileSync('git', [...identity, 'commit', '-q', '--allow-empty', '-m', 'bench'], { cwd: workdir });
  return workdir;
}

/** A loop of `length` checks with one pending spec, in a fresh repository; the workdirs go at the end. */
export async function chainLoop(ctx: ClientContext, length: number, workdirs: string[], settings: LoopSettings = {}): Promise<string> {
  const workdir = repositoryWorkdir();
  workdirs.push(workdir);
  const { loop_id } = await importLoop(ctx, chainDocument(length, settings), { workdir });
  await createSpec(ctx, { loop_id, name: 'bench' });
  return loop_id;
}

export function removeWorkdirs(workdirs: string[]): void {
  for (const dir of workdirs) rmSync(dir, { recursive: true, force: true });
}

/** Runs the loop to its end; returns the gaps between one node's start and the next's, in ms. */
export async function stepGaps(ctx: ClientContext, loopId: string): Promise<number[]> {
  await startLoopRun(ctx, loopId);
  const result = await waitForLoopRun(ctx, loopId);
  if (result.status !== 'completed') throw new Error(`bench loop ${loopId} ${result.status}: ${result.reason}`);
  const runs = await listNodeRuns(ctx.db, { loopId, limit: 200 });
  const starts = runs.map((run) => Date.parse(run.started_at)).sort((a, b) => a - b);
  return starts.slice(1).map((start, i) => start - starts[i]);
}

/** What the check activity does at its core, without the engine: spawn `bash -c true` (or `argv`) with pipes and wait for it to close. */
export async function plainSpawnMs(argv = ['bash', '-c', 'true']): Promise<number> {
  const started = process.hrtime.bigint();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    child.once('error', reject);
    child.once('close', () => resolve());
  });
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export interface StepRound {
  stepMs: number;
  spawnMs: number;
  overheadMs: number;
  /** The step of a bare Temporal workflow whose activities spawn the same command. */
  floorMs: number;
}

/**
 * Rounds of a chain, each followed by a bare workflow's chain of as many activities and by as many
 * plain spawns, so all three see the same machine; the figures of a round are medians.
 */
export async function stepRounds(
  ctx: ClientContext,
  floor: Floor,
  length: number,
  rounds: number,
  workdirs: string[],
): Promise<StepRound[]> {
  const results: StepRound[] = [];
  for (let round = 0; round < rounds; round++) {
    const stepMs = spread(await stepGaps(ctx, await chainLoop(ctx, length, workdirs))).median;
    const floorMs = spread(await floor.stepGaps(length)).median;
    const spawns: number[] = [];
    for (let i = 0; i < length; i++) spawns.push(await plainSpawnMs());
    const spawnMs = spread(spawns).median;
    results.push({ stepMs, spawnMs, overheadMs: stepMs - spawnMs, floorMs });
  }
  return results;
}

/** Node steps per second with `loops` loops of `steps` checks started at once. */
export async function throughput(ctx: ClientContext, loops: number, steps: number, workdirs: string[]): Promise<number> {
  const ids: string[] = [];
  for (let i = 0; i < loops; i++) ids.push(await chainLoop(ctx, steps, workdirs));
  const started = Date.now();
  await Promise.all(ids.map((id) => startLoopRun(ctx, id)));
  await Promise.all(ids.map((id) => waitForLoopRun(ctx, id)));
  return (loops * steps) / ((Date.now() - started) / 1000);
}
