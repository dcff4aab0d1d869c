// The worker's side of the launcher: `launch` starts a process through one long-lived launcher
// process (forked on first use, again if it dies) and returns a handle that behaves like a child
// process: 'spawn', 'stdout', 'stderr', 'exit', 'close' and 'error' events.
import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { compiledPath } from '../../project';
import type { LaunchEvent, LaunchRequest } from './protocol';

export interface LaunchOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  detached?: boolean;
  /** False sends what the process prints nowhere, sparing a pipe per stream (default true). */
  captureOutput?: boolean;
  /** A file the process reads as its standard input (default: nothing, /dev/null). */
  stdinFile?: string;
}

export interface LaunchedProcess extends EventEmitter {
  /** Set once the process has started. */
  pid: number | undefined;
}

const LAUNCHER_ENTRY = compiledPath('process', 'launcher', 'child.js');

let launcher: ChildProcess | undefined;
let nextId = 1;
const running = new Map<number, LaunchedProcess>();

function launcherProcess(): ChildProcess {
  if (launcher?.connected) return launcher;
  const started = fork(LAUNCHER_ENTRY, [], { execArgv: [], serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  started.on('message', (event: LaunchEvent) => deliver(event));
  started.once('exit', () => {
    if (launcher === started) launcher = undefined;
    for (const [id, handle] of running) {
      running.delete(id);
      if (handle.listenerCount('error') > 0) {
        handle.emit('error', new Error('the launcher process ended while this process ran; its outcome is unknown'));
      }
      handle.emit('close', null, null);
    }
  });
  launcher = started;
  holdOpen(false);
  return started;
}

/** Only processes in flight keep this process alive (and the launcher's end observed); an idle launcher must not. */
function holdOpen(hold: boolean): void {
  if (hold) {
    launcher?.ref();
    launcher?.channel?.ref();
  } else {
    launcher?.unref();
    launcher?.channel?.unref();
  }
}

function deliver(event: LaunchEvent): void {
  const handle = running.get(event.id);
  if (!handle) return;
  switch (event.type) {
    case 'spawn':
      handle.pid = event.pid;
      handle.emit('spawn');
      break;
    case 'error':
      handle.emit('error', Object.assign(new Error(event.message), { code: event.code ?? undefined }));
      break;
    case 'stdout':
    case 'stderr':
      handle.emit(event.type, Buffer.from(event.chunk));
      break;
    case 'exit':
      handle.emit('exit', event.exitCode, event.signal);
      break;
    case 'close':
      running.delete(event.id);
      if (running.size === 0) holdOpen(false);
      handle.emit('close', event.exitCode, event.signal);
      break;
  }
}

export function launch(command: string, args: string[], options: LaunchOptions): LaunchedProcess {
  const handle: LaunchedProcess = Object.assign(new EventEmitter(), { pid: undefined });
  const id = nextId++;
  const target = launcherProcess();
  running.set(id, handle);
  holdOpen(true);
  const request: LaunchRequest = {
    type: 'launch',
    id,
    command,
    args,
    cwd: options.cwd,
    env: options.env,
    detached: options.detached ?? false,
    captureOutput: options.captureOutput ?? true,
    stdinFile: options.stdinFile,
  };
  target.send(request);
  return handle;
}

/** A captured command that ran past its time limit: it was killed, and its output is unknown. */
export class LaunchTimeout extends Error {}

/** Runs a short command through the launcher and collects what it printed; past `timeoutMs` it is killed and this rejects. */
export function launchCaptured(
  command: string,
  args: string[],
  options: LaunchOptions & { timeoutMs: number },
): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = launch(command, args, options);
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    const timer = setTimeout(() => {
      if (child.pid) process.kill(child.pid, 'SIGKILL');
      reject(
        new LaunchTimeout(
          `${command} ${args.join(' ')} did not end within ${options.timeoutMs / 1000} s in ${options.cwd}, so it was stopped`,
        ),
      );
    }, options.timeoutMs);
    child.on('stdout', (chunk: Buffer) => stdout.push(chunk));
    child.on('stderr', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', (error: Error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (exitCode: number | null) => {
      clearTimeout(timer);
      resolve({ exitCode, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') });
    });
  });
}
