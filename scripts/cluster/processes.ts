// The cluster's long-running processes: each in its own process group, writing to its own log file,
// so one can be killed alone (as a crash would) and what it printed is kept.
import { execFile, spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { killProcessGroup } from '../../src/process/process-group';

export interface ClusterProcess {
  pid: number;
  logFile: string;
  /** Where this process's output starts in its log, which keeps the output of earlier runs. */
  logStart: number;
  /** Settles once the process has ended. */
  exited: Promise<void>;
  /** SIGKILL to its whole group, as a crash of its machine would end it. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs: number): Promise<void>;
}

export function spawnLogged(command: string, args: string[], env: NodeJS.ProcessEnv, logFile: string): ClusterProcess {
  const log = openSync(logFile, 'a');
  const logStart = fstatSync(log).size;
  const child = spawn(command, args, { env, detached: true, stdio: ['ignore', log, log] });
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pid = child.pid!;
  return {
    pid,
    logFile,
    logStart,
    exited,
    async kill() {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Its group is gone already.
      }
      await exited;
    },
    stop: (graceMs) => killProcessGroup(pid, exited, graceMs),
  };
}

/** Resolves once the process's log shows `pattern`; fails when it ends first or `timeoutMs` passes. */
export async function waitForLog(proc: ClusterProcess, pattern: RegExp, timeoutMs: number): Promise<void> {
  let ended = false;
  void proc.exited.then(() => (ended = true));
  const deadline = Date.now() + timeoutMs;
  const output = () => readFileSync(proc.logFile).subarray(proc.logStart).toString();
  while (!pattern.test(output())) {
    if (ended) throw new Error(`${proc.logFile}: the process ended before printing ${pattern}:\n${lastLines(output())}`);
    if (Date.now() > deadline) throw new Error(`${proc.logFile}: no ${pattern} within ${timeoutMs / 1000}s:\n${lastLines(output())}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs one of docker/'s shell scripts to its end, or until `signal` aborts it; its output goes into the error when it fails. */
export function runScript(script: string, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('sh', [script], { env, signal, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${script} failed (${error.message.split('\n')[0]}):\n${stdout}${stderr}`));
      else resolve();
    });
  });
}

function lastLines(text: string): string {
  return text.split('\n').slice(-30).join('\n');
}
