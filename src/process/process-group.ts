// Runs a command in its own process group and kills the whole group on timeout, cancel or crash recovery.
import { launch } from './launcher';
import { groupHasLiveMember, groupsDescendedFrom } from './process-identity';

export const KILL_GRACE_MS = 3_000;
/** Output kept per stream; the rest is dropped with a marker so a runaway process cannot exhaust memory. */
const MAX_CAPTURE_BYTES = 8 * 1024 * 1024;

export interface GroupRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Aborting kills the group; the result then says `cancelled`. */
  signal?: AbortSignal;
  /** Called once the group exists, with its id, so it can be recorded for crash recovery. */
  onSpawn?: (pgid: number) => void | Promise<void>;
  /** A file the process reads as its standard input; default /dev/null. */
  stdinFile?: string;
}

export interface GroupRunResult {
  pgid: number | null;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
  spawnError: string | null;
  /** Why the process's end is unknown though it started: its supervisor ended before recording it. */
  lost: string | null;
  /** Where it found no space left: it failed, or its end went unrecorded, with the file system its output goes to full. */
  noSpace: string | null;
  /** Set when canopy killed it for printing nothing for its idle limit. */
  idle: IdleEnd | null;
}

export interface IdleEnd {
  limitMinutes: number;
  /** The last line it printed, on stdout or stderr; null when it printed nothing at all. */
  lastLine: string | null;
}

export function runInProcessGroup(command: string, args: string[], options: GroupRunOptions): Promise<GroupRunResult> {
  return new Promise((resolve) => {
    const child = launch(command, args, { cwd: options.cwd, env: options.env, detached: true, stdinFile: options.stdinFile });
    const stdout = new Capture();
    const stderr = new Capture();
    child.on('stdout', (chunk: Buffer) => stdout.add(chunk));
    child.on('stderr', (chunk: Buffer) => stderr.add(chunk));
    let timedOut = false;
    let cancelled = false;
    let spawnError: string | null = null;
    let finished = false;
    let outputWait: NodeJS.Timeout | undefined;
    const exited = new Promise<void>((done) => child.once('close', () => done()));
    // A kill under way is awaited before the result is given, so no process of the group outlives it.
    let killing: Promise<void> = Promise.resolve();
    const kill = () => {
      killing = killProcessGroup(child.pid!, exited);
    };

    const stop = (why: 'timeout' | 'cancel') => {
      if (why === 'timeout') timedOut = true;
      else cancelled = true;
      if (child.pid) kill();
    };
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    const onAbort = () => stop('cancel');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();

    child.once('spawn', () => {
      // A timeout or cancel that came before the launcher reported the pid could not kill yet.
      if (timedOut || cancelled) kill();
      void options.onSpawn?.(child.pid!);
    });
    // Background children that outlive the leader would hold the pipes open and linger as orphans.
    child.once('exit', (exitCode: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      if (child.pid && isGroupAlive(child.pid)) kill();
      // A process that left the group and outlived its parent is out of the kill's reach, and may
      // hold the output open for as long as it runs: past a grace, the result does not wait for it.
      void killing.then(() => {
        if (!finished) outputWait = setTimeout(() => finish(exitCode, signal), KILL_GRACE_MS);
      });
    });
    child.once('error', (error: Error) => {
      spawnError = error.message;
    });
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearTimeout(outputWait);
      options.signal?.removeEventListener('abort', onAbort);
      const result: GroupRunResult = {
        pgid: child.pid ?? null,
        exitCode,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        cancelled,
        spawnError,
        lost: null,
        noSpace: null,
        idle: null,
      };
      void killing.then(() => resolve(result));
    };
    child.once('close', finish);
  });
}

/**
 * SIGTERM to the whole group and to the groups its processes started elsewhere, SIGKILL after a
 * grace period. Without an `exited` promise (a group left behind by a worker that died) it polls
 * until the group is gone.
 */
export async function killProcessGroup(pgid: number, exited?: Promise<unknown>, graceMs = KILL_GRACE_MS): Promise<void> {
  // Looked up first: once their parents die, the strays can no longer be told from strangers.
  const strays = groupsDescendedFrom(pgid);
  if (!signalGroup(pgid, 'SIGTERM')) return;
  for (const stray of strays) signalGroup(stray, 'SIGTERM');
  const allGone = (groups: number[], ms: number) =>
    settlesWithin(Promise.all([exited ?? waitForGroupExit(pgid, ms), ...groups.map((group) => waitForGroupExit(group, ms))]), ms);
  await allGone(strays, graceMs);
  const left = [...new Set([pgid, ...strays, ...groupsDescendedFrom(pgid)])].filter(isGroupAlive);
  for (const group of left) signalGroup(group, 'SIGKILL');
  await allGone(left, 5_000);
}

/** Kills each of the groups (a dead run's leftovers) at once, as `killProcessGroup` does one. */
export async function killProcessGroups(pgids: number[]): Promise<void> {
  await Promise.all(pgids.map((pgid) => killProcessGroup(pgid)));
}

export function isGroupAlive(pgid: number): boolean {
  return signalGroup(pgid, 0) && groupHasLiveMember(pgid);
}

function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

async function waitForGroupExit(pgid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isGroupAlive(pgid) && Date.now() < deadline) await delay(50);
}

/**
 * Whether `work` settles within `ms`. The timer is cleared either way: a pending one would keep a
 * process that is shutting down alive until it fires.
 */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true), expired]);
  } finally {
    clearTimeout(timer);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

class Capture {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = 0;

  add(chunk: Buffer): void {
    const room = MAX_CAPTURE_BYTES - this.size;
    if (room <= 0) {
      this.dropped += chunk.length;
      return;
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
    this.dropped += chunk.length - kept.length;
  }

  text(): string {
    const body = Buffer.concat(this.chunks).toString('utf8');
    return this.dropped ? `${body}\n[canopy: ${this.dropped} more bytes not kept]` : body;
  }
}
