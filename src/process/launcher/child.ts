// The launcher process: starts processes on the worker's behalf and streams back what they print
// and how they end. A process costs a fork of whoever starts it, and a fork costs in proportion to
// the parent's memory: from this small process it is a few times cheaper than from the worker.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { LaunchEvent, LaunchRequest } from './protocol';

function send(event: LaunchEvent): void {
  process.send?.(event);
}

function launch(request: LaunchRequest): void {
  const { id } = request;
  let child: ChildProcess;
  let stdin: number | undefined;
  try {
    stdin = request.stdinFile === undefined ? undefined : openSync(request.stdinFile, 'r');
    const output = request.captureOutput ? 'pipe' : 'ignore';
    child = spawn(request.command, request.args, {
      cwd: request.cwd,
      env: request.env,
      detached: request.detached,
      stdio: [stdin ?? 'ignore', output, output],
    });
  } catch (error) {
    // E2BIG, a NUL byte, a cwd that is a file: spawn throws instead of emitting 'error', and
    // uncaught it would end this launcher and every process it reports on.
    const { message, code } = error as NodeJS.ErrnoException;
    send({ type: 'error', id, message, code: code ?? null });
    send({ type: 'close', id, exitCode: null, signal: null });
    return;
  } finally {
    // The process has its own copy of the file; the launcher keeps none open.
    if (stdin !== undefined) closeSync(stdin);
  }
  child.once('spawn', () => send({ type: 'spawn', id, pid: child.pid! }));
  child.once('error', (error: NodeJS.ErrnoException) => send({ type: 'error', id, message: error.message, code: error.code ?? null }));
  child.stdout?.on('data', (chunk: Buffer) => send({ type: 'stdout', id, chunk }));
  child.stderr?.on('data', (chunk: Buffer) => send({ type: 'stderr', id, chunk }));
  child.once('exit', (exitCode, signal) => send({ type: 'exit', id, exitCode, signal }));
  child.once('close', (exitCode, signal) => send({ type: 'close', id, exitCode, signal }));
}

process.on('message', (request: LaunchRequest) => launch(request));
// The worker is gone: its processes run on in their own groups, and the next attempt of their
// activities deals with them; this process has no one left to report to.
process.on('disconnect', () => process.exit(0));
