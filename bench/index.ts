// `npm run bench`: CLI start-up, the engine's own time per node step, throughput with concurrent
// loops, where a loop run's time goes and its CPU, the worker's RSS, the member cap under load, the payload
// codec's cost, what a worker crash costs a running agent, a fleet of `canopy loop run` processes
// started at once, loops waiting at an approval, and the input tokens a resumed agent session sends. Everything runs on this machine: a private dev
// server, `canopy worker` child processes, temp workdirs. Every figure is a median with its min and max.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeFileConfig } from '../src/agents/config';
import { openContext, type ClientContext } from '../src/client/context';
import { loadConfig } from '../src/config';
import { CANOPY_BIN } from '../src/project';
import { startTestServer } from '../test/helpers/dev-server';
import { measureCliStartup } from './cli-startup';
import { approvalFigures } from './approvals';
import { webFigures } from './web';
import { codecRounds, startEncryptedWorker } from './codec';
import { confinementRounds, type ConfinementRound } from './confinement';
import { runAnatomy, type RunAnatomy } from './anatomy';
import { chainLoop, removeWorkdirs, stepGaps, stepRounds, throughput } from './engine';
import { fleetRound, type FleetRound } from './fleet';
import { startFloor, type Floor } from './floor';
import { memberCapRound, memberPlatformEntry, MEMBER_PLATFORM, perfectDrainMs, type MemberCapRound } from './member-cap';
import { crashRecovery, footprintAt, type CrashRecovery } from './recovery';
import { cpuPerStep, type Party } from './cpu-share';
import { loopWithHistory } from '../test/helpers/history';
import { launcherPids } from '../test/helpers/processes';
import { resumeTokenRounds } from './resume';
import { formatSpread, spread } from './stats';
import { missingClis } from '../test/helpers/agent-clis';

const CHAIN_LENGTH = 50;
const STEP_ROUNDS = 5;
const CONCURRENCY_LEVELS = [1, 5, 20];
const THROUGHPUT_ROUNDS = 3;
const STEPS_PER_CONCURRENT_LOOP = 10;
const ANATOMY_LENGTH = 10;
const ANATOMY_ROUNDS = 10;
const CPU_LOOPS = 5;
const CPU_ROUNDS = 3;
const CLI_RUNS = 7;
const RECOVERY_ROUNDS = 3;
const RECOVERY_HEARTBEAT_SECONDS = 5;
const FOOTPRINT_LEVELS = [10, 100];
const CAPPED_LOOPS = 3;
const MEMBER_CAP = 4;
const MEMBER_CAP_ROUNDS = 3;
const FLEET_LOOPS = 100;
const FLEET_ROUNDS = 2;
const WAITING_LOOPS = 100;
const WEB_ROUNDS = 5;
const RESUME_ROUNDS = 2;

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** Its own task queue and workers, which it kills; a short heartbeat timeout so a crash is noticed in seconds. */
async function recoveryFigures(benchEnv: NodeJS.ProcessEnv, workdirs: string[]): Promise<void> {
  const env = {
    ...benchEnv,
    CANOPY_TASK_QUEUE: 'canopy-bench-recovery',
    CANOPY_HEARTBEAT_TIMEOUT_SECONDS: String(RECOVERY_HEARTBEAT_SECONDS),
  };
  const ctx = await openContext(loadConfig(env));
  try {
    const crashes: CrashRecovery[] = [];
    for (let round = 0; round < RECOVERY_ROUNDS; round++) crashes.push(await crashRecovery(ctx, env, workdirs));
    console.log(
      `(e) worker SIGKILLed 2 s into an 8 s agent, restarted at once, ${RECOVERY_ROUNDS} rounds (heartbeat timeout ${RECOVERY_HEARTBEAT_SECONDS} s):`,
    );
    console.log(`    agent-seconds lost per crash (goal 0):       ${formatSpread(spread(crashes.map((c) => c.agentSecondsLost)), 's')}`);
    console.log(
      `    worker restart to the adopted node recorded: ${formatSpread(spread(crashes.map((c) => c.restartToRecordedMs)), 'ms', 0)}`,
    );
    console.log(
      `    agent exit to the adopted node recorded:     ${formatSpread(spread(crashes.map((c) => c.exitToRecordedMs)), 'ms', 0)}`,
    );
    for (const loops of FOOTPRINT_LEVELS) {
      const footprint = await footprintAt(ctx, env, loops, workdirs);
      console.log(
        `(f) ${String(loops).padStart(3)} loops each running a node: worker RSS ${footprint.workerRssMb.toFixed(0)} MB at its highest; ` +
          `supervisor ${footprint.supervisorRssKb.toFixed(0)} kB per running node`,
      );
    }
  } finally {
    await ctx.close();
  }
}

/** The payload codec's cost per node step: encrypted and plain chains, round by round. */
async function codecFigures(plain: ClientContext, env: NodeJS.ProcessEnv, workdirs: string[]): Promise<void> {
  const encrypted = await startEncryptedWorker(env);
  try {
    await stepGaps(encrypted.ctx, await chainLoop(encrypted.ctx, 20, workdirs));
    const rounds = await codecRounds(plain, encrypted.ctx, CHAIN_LENGTH, STEP_ROUNDS, workdirs);
    console.log(`(h) payload encryption, chains of ${CHAIN_LENGTH} checks, ${STEP_ROUNDS} rounds of plain then encrypted:`);
    console.log(`    per step, plain:     ${formatSpread(spread(rounds.map((r) => r.plainMs)), 'ms')}`);
    console.log(`    per step, encrypted: ${formatSpread(spread(rounds.map((r) => r.encryptedMs)), 'ms')}`);
    console.log(`    encrypted over plain, per round: ${formatSpread(spread(rounds.map((r) => r.encryptedMs / r.plainMs)), 'x', 2)}`);
  } finally {
    await encrypted.close();
  }
}

/** The node step with and without bwrap around its process, side by side, and the bare spawn both ways. */
async function confinementFigures({ ctx, workdirs }: Bench): Promise<void> {
  const rounds = await confinementRounds(ctx, CHAIN_LENGTH, STEP_ROUNDS, workdirs);
  if (typeof rounds === 'string') {
    console.log(`(l) confinement: not measured: ${rounds}`);
    return;
  }
  const figure = (pick: (round: ConfinementRound) => number, unit: string, digits?: number) =>
    formatSpread(spread(rounds.map(pick)), unit, digits);
  console.log(`(l) confinement, chains of ${CHAIN_LENGTH} checks, ${STEP_ROUNDS} rounds of unconfined then confined:`);
  console.log(`    per step, confine: false:             ${figure((r) => r.unconfinedMs, 'ms')}`);
  console.log(`    per step, confined (bwrap):           ${figure((r) => r.confinedMs, 'ms')}`);
  console.log(`    confined over unconfined, per round:  ${figure((r) => r.confinedMs / r.unconfinedMs, 'x', 2)}`);
  console.log(`    spawn of bash -c true:                ${figure((r) => r.spawnMs, 'ms')}`);
  console.log(`    the same in bwrap:                    ${figure((r) => r.confinedSpawnMs, 'ms')}`);
  console.log(`    bwrap over the bare spawn, per round: ${figure((r) => r.confinedSpawnMs / r.spawnMs, 'x', 2)}`);
}

interface Bench {
  ctx: ClientContext;
  env: NodeJS.ProcessEnv;
  floor: Floor;
  worker: ChildProcess;
  serverPid: number;
  /** A finished 20-check loop, for the read commands. */
  warmLoop: string;
  workdirs: string[];
}

/** The node runs of the long history the read commands also meet. */
const LONG_HISTORY = 20_000;

async function startupFigures({ ctx, env, warmLoop }: Bench): Promise<void> {
  const history = await loopWithHistory(ctx, LONG_HISTORY);
  const long = history.loopId;
  const middle = history.newestFirst[LONG_HISTORY / 2];
  const commands = [
    ['--version'],
    ['--help'],
    ['loop', 'list'],
    ['loop', 'get', warmLoop],
    ['loop', 'info', warmLoop],
    ['loop', 'runs', warmLoop],
    ['loop', 'info', long],
    ['loop', 'runs', long, '--limit', '200'],
    ['loop', 'runs', long, '--limit', '200', '--before', middle],
    ['spec', 'list'],
    ['queue', 'list'],
    ['blueprint', 'list'],
    // Reaches Temporal (the server and the worker's pollers) through the client SDK.
    ['doctor'],
  ];
  const startup = measureCliStartup(commands, env, CLI_RUNS);
  console.log(
    `(a) CLI start-up, whole process, ${CLI_RUNS} runs each, each over \`node -e 0\` run just before it ` +
      `(${formatSpread(startup.yardstickMs, 'ms', 0)}); goals: --version and --help <= 1.5x, read commands <= 2x (doctor, which asks Temporal, has none); ` +
      `<long> is a loop with ${LONG_HISTORY} node runs, which loop list also meets:`,
  );
  for (const figure of startup.figures) {
    const ratio = `${figure.ratio.median.toFixed(2)}x (min ${figure.ratio.min.toFixed(2)}, max ${figure.ratio.max.toFixed(2)})`;
    const command = figure.command.replace(warmLoop, '<id>').replace(long, '<long>').replace(middle, '<run>');
    console.log(`    ${command.padEnd(52)} ${ratio}  ${formatSpread(figure.wallMs, 'ms', 0)}`);
  }
}

async function stepFigures({ ctx, floor, workdirs }: Bench): Promise<void> {
  const rounds = await stepRounds(ctx, floor, CHAIN_LENGTH, STEP_ROUNDS, workdirs);
  console.log(
    `(b) chains of ${CHAIN_LENGTH} checks running \`true\`, ${STEP_ROUNDS} rounds, each followed by ${CHAIN_LENGTH} plain spawns:`,
  );
  console.log(`    per step (node start to next node start): ${formatSpread(spread(rounds.map((r) => r.stepMs)), 'ms')}`);
  console.log(`    plain \`bash -c true\` spawn:              ${formatSpread(spread(rounds.map((r) => r.spawnMs)), 'ms')}`);
  console.log(`    bare Temporal workflow step (the floor):   ${formatSpread(spread(rounds.map((r) => r.floorMs)), 'ms')}`);
  console.log(
    `    step over the floor, per round (goal <= 1.1x): ${formatSpread(spread(rounds.map((r) => r.stepMs / r.floorMs)), 'x', 2)}`,
  );
  const noisy = rounds.findIndex((r) => r.overheadMs <= 0);
  if (noisy >= 0) {
    const r = rounds[noisy];
    console.log(
      `    engine overhead per step: not measured: in round ${noisy + 1} a plain spawn (${r.spawnMs.toFixed(1)} ms) took as long as a whole step ` +
        `(${r.stepMs.toFixed(1)} ms), so the machine was too noisy; run the bench again on a quieter machine`,
    );
  } else {
    console.log(
      `    engine overhead per step (step minus spawn, per round): ${formatSpread(spread(rounds.map((r) => r.overheadMs)), 'ms')}`,
    );
  }
}

async function throughputFigures({ ctx, floor, worker, workdirs }: Bench): Promise<void> {
  for (const loops of CONCURRENCY_LEVELS) {
    const samples: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
      const steps = await throughput(ctx, loops, STEPS_PER_CONCURRENT_LOOP, workdirs);
      samples.push(steps);
      ratios.push(steps / (await floor.throughput(loops, STEPS_PER_CONCURRENT_LOOP)));
    }
    const label = `(c) ${String(loops).padStart(2)} loop(s) at once, ${STEPS_PER_CONCURRENT_LOOP} steps each, ${THROUGHPUT_ROUNDS} rounds:`;
    console.log(`${label.padEnd(50)} ${formatSpread(spread(samples), 'node steps/s')}`);
    console.log(`${''.padEnd(50)} over as many bare workflows (goal >= 0.85x): ${formatSpread(spread(ratios), 'x', 2)}`);
  }
  console.log(`(d) worker peak RSS: ${peakRssMb(worker.pid!).toFixed(0)} MB`);
}

async function anatomyFigures({ ctx, workdirs }: Bench): Promise<void> {
  const onHost: RunAnatomy[] = [];
  const noHost: RunAnatomy[] = [];
  for (let round = 0; round < ANATOMY_ROUNDS; round++) {
    onHost.push(await runAnatomy(ctx, ANATOMY_LENGTH, true, workdirs));
    noHost.push(await runAnatomy(ctx, ANATOMY_LENGTH, false, workdirs));
  }
  const figure = (runs: RunAnatomy[], of: (run: RunAnatomy) => number[]) => formatSpread(spread(runs.flatMap(of)), 'ms');
  console.log(`(j) where a loop run's time goes, from its history: chains of ${ANATOMY_LENGTH} checks, ${ANATOMY_ROUNDS} rounds each way:`);
  console.log(`    per step, a loop with a host (its queue):  ${figure(onHost, (run) => run.stepMs)}`);
  console.log(`    per step, no host (the shared queue):      ${figure(noHost, (run) => run.stepMs)}`);
  console.log(`    workflow start to the first node:          ${figure(onHost, (run) => [run.beforeFirstNodeMs])}`);
  console.log(`    last node's end to the workflow's close:   ${figure(onHost, (run) => [run.afterLastNodeMs])}`);
}

/** Medians of each label's CPU per step over the rounds, in the order the labels first came. */
function cpuLine(rounds: Record<string, number>[]): string {
  return Object.keys(rounds[0])
    .map((label) => `${label} ${spread(rounds.map((round) => round[label])).median.toFixed(1)}`)
    .join(', ');
}

async function cpuFigures({ ctx, floor, worker, serverPid, workdirs }: Bench): Promise<void> {
  const [launcher] = launcherPids(worker.pid);
  const server: Party = { label: 'Temporal server', pid: serverPid };
  const canopyParties: Party[] = [
    server,
    { label: 'worker', pid: worker.pid! },
    { label: 'launcher', pid: launcher },
    { label: 'what it started (supervisors, checks, git)', pid: launcher, started: true },
    { label: 'this client', pid: process.pid },
  ];
  const floorParties: Party[] = [
    server,
    { label: 'its worker (this process)', pid: process.pid },
    { label: 'what it started (checks)', pid: process.pid, started: true },
  ];
  const steps = CPU_LOOPS * STEPS_PER_CONCURRENT_LOOP;
  const canopy: Record<string, number>[] = [];
  const bare: Record<string, number>[] = [];
  for (let round = 0; round < CPU_ROUNDS; round++) {
    canopy.push(await cpuPerStep(canopyParties, steps, () => throughput(ctx, CPU_LOOPS, STEPS_PER_CONCURRENT_LOOP, workdirs)));
    bare.push(await cpuPerStep(floorParties, steps, () => floor.throughput(CPU_LOOPS, STEPS_PER_CONCURRENT_LOOP)));
  }
  console.log(
    `(k) CPU per node step in ms, ${CPU_LOOPS} loops of ${STEPS_PER_CONCURRENT_LOOP} checks at once, ${CPU_ROUNDS} rounds (medians; machine: both cores, every process):`,
  );
  console.log(`    canopy: ${cpuLine(canopy)}`);
  console.log(`    floor:  ${cpuLine(bare)}`);
}

async function memberCapFigures({ ctx, workdirs }: Bench): Promise<void> {
  const capRounds: MemberCapRound[] = [];
  for (let round = 0; round < MEMBER_CAP_ROUNDS; round++) capRounds.push(await memberCapRound(ctx, CAPPED_LOOPS, workdirs));
  const perfect = perfectDrainMs(CAPPED_LOOPS, MEMBER_CAP);
  console.log(
    `(g) ${CAPPED_LOOPS} loops x 4-member ensembles at once under a cap of ${MEMBER_CAP}, ${MEMBER_CAP_ROUNDS} rounds (members 1 s each):`,
  );
  console.log(
    `    member processes at once, at the most (goal: ${MEMBER_CAP}): ${formatSpread(spread(capRounds.map((r) => r.mostAtOnce)), '', 0)}`,
  );
  console.log(`    time to drain: ${formatSpread(spread(capRounds.map((r) => r.drainMs)), 'ms', 0)}`);
  console.log(
    `    as a ratio to a cap that never idles a slot (${perfect} ms): ${formatSpread(spread(capRounds.map((r) => r.drainMs / perfect)), 'x', 2)}`,
  );
}

async function fleetFigures({ ctx, env, workdirs }: Bench): Promise<void> {
  const rounds: FleetRound[] = [];
  for (let round = 0; round < FLEET_ROUNDS; round++) rounds.push(await fleetRound(ctx, env, FLEET_LOOPS, workdirs));
  console.log(`(i) ${FLEET_LOOPS} \`canopy loop run\` processes of one-check loops spawned at once, ${FLEET_ROUNDS} rounds:`);
  console.log(`    every command returned:              ${formatSpread(spread(rounds.map((r) => r.returnedMs)), 'ms', 0)}`);
  console.log(`    every loop completed:                ${formatSpread(spread(rounds.map((r) => r.completedMs)), 'ms', 0)}`);
  console.log(`    workflow tasks timed out (goal 0):    ${formatSpread(spread(rounds.map((r) => r.workflowTaskTimeouts)), '', 0)}`);
}

async function approvalSection({ ctx, worker, workdirs }: Bench): Promise<void> {
  const figures = await approvalFigures(ctx, worker.pid!, WAITING_LOOPS, workdirs);
  console.log(`(m) ${WAITING_LOOPS} loops waiting at an approval at once, then each approved in turn:`);
  console.log(
    `    worker RSS: ${figures.idleRssMb.toFixed(0)} MB with the loops idle, ${figures.waitingRssMb.toFixed(0)} MB with them all waiting ` +
      `(${(figures.waitingRssMb - figures.idleRssMb).toFixed(1)} MB more)`,
  );
  console.log(`    while they wait (goal 0 and 0): ${figures.pendingActivities} activities pending, ${figures.processes} processes`);
  console.log(`    decision to the next node's start:    ${formatSpread(spread(figures.decisionToNextMs), 'ms', 0)}`);
  console.log(`    yardstick, a node step of those loops: ${formatSpread(spread(figures.stepMs), 'ms', 0)}`);
  const ratios = figures.decisionToNextMs.map((ms, index) => ms / Math.max(1, figures.stepMs[index]));
  console.log(`    decision over the step, per loop:     ${formatSpread(spread(ratios), 'x', 2)}`);
}

async function webSection({ ctx, env, workdirs }: Bench): Promise<void> {
  const figures = await webFigures(ctx, env, WEB_ROUNDS, workdirs);
  const ratio = (values: number[], yardstick: number[]) => spread(values.map((ms, index) => ms / Math.max(1, yardstick[index])));
  console.log(`(n) the web app (canopy web, chromium) over 500 loops and 20,000 node runs, ${WEB_ROUNDS} rounds:`);
  console.log(`    overview until its 500 loops show:  ${formatSpread(spread(figures.overviewMs), 'ms', 0)}`);
  console.log(
    `    yardstick, canopy loop list:         ${formatSpread(spread(figures.loopListCliMs), 'ms', 0)}  (ratio ${formatSpread(ratio(figures.overviewMs, figures.loopListCliMs), 'x', 2)})`,
  );
  console.log(`    a loop of 2,000 runs, graph and runs: ${formatSpread(spread(figures.bigLoopMs), 'ms', 0)}`);
  console.log(
    `    yardstick, canopy loop runs:         ${formatSpread(spread(figures.loopRunsCliMs), 'ms', 0)}  (ratio ${formatSpread(ratio(figures.bigLoopMs, figures.loopRunsCliMs), 'x', 2)})`,
  );
  console.log(`    a node's end to its state on a page (goal <= 1000 ms): ${formatSpread(spread(figures.nodeEndToPageMs), 'ms', 0)}`);
  console.log(`    yardstick, canopy loop info:         ${formatSpread(spread(figures.loopInfoCliMs), 'ms', 0)}`);
  console.log(`    yardstick, node -e 0:                 ${formatSpread(spread(figures.yardstickMs), 'ms', 0)}`);
}

/** Round 2 of a fix loop, cold against resumed: token counts, all input and the uncached part, with the cold ones as the yardstick. */
async function resumeFigures({ env }: Bench): Promise<void> {
  const missing = missingClis();
  if (missing) return void console.log(`(n) resume: skipped, ${missing}`);
  const figures = await resumeTokenRounds(env.TEMPORAL_ADDRESS!, RESUME_ROUNDS);
  console.log(
    `(n) input tokens of round 2 of a two-round fix loop, real CLIs against the stand-in model, ${RESUME_ROUNDS} loops each way:`,
  );
  for (const [cli, { cold, resumed }] of Object.entries(figures)) {
    for (const part of ['input', 'uncached'] as const) {
      const [ofResumed, ofCold] = [resumed, cold].map((rounds) => rounds.map((round) => round[part]));
      const ratios = ofResumed.map((tokens, index) => tokens / ofCold[index]);
      console.log(
        `    ${cli.padEnd(8)} ${part.padEnd(8)} resumed ${formatSpread(spread(ofResumed), 'tokens', 0)}; ` +
          `cold ${formatSpread(spread(ofCold), 'tokens', 0)}; resumed over cold ${formatSpread(spread(ratios), 'x', 2)}`,
      );
    }
  }
}

/** The sections in the order they run; `npm run bench -- step throughput` runs only those named. */
const SECTIONS: Record<string, (bench: Bench) => void | Promise<void>> = {
  startup: startupFigures,
  step: stepFigures,
  throughput: throughputFigures,
  anatomy: anatomyFigures,
  cpu: cpuFigures,
  'member-cap': memberCapFigures,
  codec: ({ ctx, env, workdirs }) => codecFigures(ctx, env, workdirs),
  confinement: confinementFigures,
  recovery: ({ env, workdirs }) => recoveryFigures(env, workdirs),
  fleet: fleetFigures,
  approvals: approvalSection,
  web: webSection,
  resume: resumeFigures,
};

function chosenSections(names: string[]): string[] {
  const unknown = names.filter((name) => !(name in SECTIONS));
  if (unknown.length) {
    throw new Error(
      `Unknown bench section ${unknown.map((n) => `'${n}'`).join(', ')}: name any of ${Object.keys(SECTIONS).join(', ')}, or none for all.`,
    );
  }
  return names.length ? Object.keys(SECTIONS).filter((name) => names.includes(name)) : Object.keys(SECTIONS);
}

async function main(): Promise<void> {
  const sections = chosenSections(process.argv.slice(2));
  const home = mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-home-'));
  writeFileConfig(home, { ensemble_concurrency: MEMBER_CAP, platforms: { [MEMBER_PLATFORM]: memberPlatformEntry } });
  const server = await startTestServer();
  const { address } = server;
  const env = { ...process.env, CANOPY_HOME: home, TEMPORAL_ADDRESS: address, CANOPY_TASK_QUEUE: 'canopy-bench', CANOPY_DATABASE_URL: '' };
  const worker = spawn(process.execPath, [CANOPY_BIN, 'worker'], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise<void>((resolve) =>
    worker.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('Worker polling') && resolve()),
  );
  const ctx = await openContext(loadConfig(env));
  const floor = await startFloor(address);
  const workdirs: string[] = [];
  try {
    // Warm-up: the workflow cache, SQLite pages, Temporal's task queues.
    const warmLoop = await chainLoop(ctx, 20, workdirs);
    await stepGaps(ctx, warmLoop);
    await floor.stepGaps(20);
    const bench: Bench = { ctx, env, floor, worker, serverPid: server.pid, warmLoop, workdirs };
    for (const name of sections) await SECTIONS[name](bench);
  } finally {
    worker.kill('SIGTERM');
    await floor.close();
    await ctx.close();
    await server.stop();
    removeWorkdirs(workdirs);
    rmSync(home, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
