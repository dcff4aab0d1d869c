// Child `canopy` processes: commands run to their end, and workers or `up` for tests that kill and restart them.
import { spawn, spawnSync, type ChildProcess, type ChildProcessByStdio, type SpawnSyncReturns } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { CANOPY_BIN } from '../../src/project';
import { livePidsWhere } from './running-processes';

/** The environment of a canopy that uses the store in `home` only, whatever store this process's environment points at. */
export function homeOnlyEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...(process.env as Record<string, string>), CANOPY_HOME: home, CANOPY_DATABASE_URL: '', ...extra };
}

/** Runs a canopy command to its end, blocking this process: for tests with no in-process worker to keep polling. */
export function canopySync(
  env: NodeJS.ProcessEnv,
  args: string[],
  options: { cwd?: string; timeout?: number } = {},
): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [CANOPY_BIN, ...args], { encoding: 'utf8', env, ...options });
}

export interface CanopyProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<number | string>;
}

/** Starts `canopy <args>`: this checkout's, or the one at `bin`. */
export function spawnCanopy(args: string[], env: NodeJS.ProcessEnv, bin = CANOPY_BIN): CanopyProcess {
  const child = canopyChild(args, env, bin);
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return { child, output: () => output, exited };
}

export interface CanopyResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a canopy command to its end without blocking this process (whose in-process worker must keep polling). */
export function runCanopy(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CanopyResult> {
  return ended(canopyChild(args, env));
}

function canopyChild(args: string[], env: NodeJS.ProcessEnv, bin = CANOPY_BIN): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
}

function ended(child: ChildProcessByStdio<null, Readable, Readable>): Promise<CanopyResult> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

export async function waitForOutput(proc: CanopyProcess, pattern: RegExp, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(proc.output())) {
    if (proc.child.exitCode !== null) throw new Error(`canopy exited before printing ${pattern}:\n${proc.output()}`);
    if (Date.now() > deadline) throw new Error(`canopy did not print ${pattern} within ${timeoutMs} ms:\n${proc.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Pids of the children of `parent` (this process by default) that run the launcher's entry point. */
export function launcherPids(parent = process.pid): number[] {
  return livePidsWhere((pid) => parentOf(pid) === parent && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('launcher/child.js'));
}

/** Whether `ancestor` is `pid`'s parent, its parent's parent, and so on (Linux: read from /proc). */
export function descendsFrom(pid: number, ancestor: number): boolean {
  for (let current = pid; current > 1;) {
    current = parentOf(current);
    if (current === ancestor) return true;
  }
  return false;
}

/** Every live process that descends from `ancestor`. */
export function descendantsOf(ancestor: number): number[] {
  return livePidsWhere((pid) => descendsFrom(pid, ancestor));
}

/** The fields of /proc/<pid>/stat after the command name, which is in parentheses and may hold spaces: state, ppid, … */
export function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function parentOf(pid: number): number {
  return Number(statFields(pid)[1]);
}
