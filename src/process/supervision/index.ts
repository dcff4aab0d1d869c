// Agents and checks run under a supervisor of their own: a shell leading a new process group, which
// sends the command's output to files in the node run's directory and records its exit status
// when it ends. The worker follows those files instead of pipes, so a worker that dies loses
// nothing: its retry adopts the process while it runs, or takes the outcome it recorded.
import { fullFileSystem } from '../disk-space';
import { confinedArgv, type Confinement } from '../confinement';
import { findOnPath } from '../find-on-path';
import { launch } from '../launcher';
import { isGroupAlive, killProcessGroup, type GroupRunResult, type IdleEnd } from '../process-group';
import { commandLine, identify, stillRunning } from '../process-identity';
import {
  outputChangedAt,
  outputSize,
  readExitStatus,
  readOutput,
  readOutputTail,
  readProcessRecord,
  readSupervisorStart,
  writeProcessRecord,
  type ExitStatus,
  type ProcessRecord,
} from './records';

export type { ProcessRecord } from './records';

const SUPERVISOR_SCRIPT = [
  'dir=$1; deadline=$2; shift 2',
  // Who it is, before the command starts: a worker killed before it wrote the process record (on a
  // busy machine, after the command had begun) leaves this for the next attempt to adopt it by.
  'echo "$$ $deadline" >"$dir/supervisor"',
  '"$@" >"$dir/stdout" 2>"$dir/stderr"',
  'status=$?',
  // One write of a few bytes, so the file is empty or whole: no rename, which would cost a process.
  'echo "$status" >"$dir/exit"',
].join('\n');

/** The supervisor's $0, by which a process is known for one. */
const SUPERVISOR_NAME = 'canopy-supervisor';

const TICK_MS = 1_000;
/** How often the live tail of stdout is passed on while it grows. */
const OUTPUT_TAIL_MS = 3_000;
const OUTPUT_TAIL_BYTES = 4 * 1024;
/** How often an adopted process, which is not this worker's child, is looked at. */
const ADOPTED_POLL_MS = 200;

export interface SupervisionOptions {
  /** The node run's private directory: the process's output and records go there. */
  runDir: string;
  timeoutMs: number;
  /** Printing nothing, on stdout or stderr, this long kills the group; without it nothing does. */
  idleMs?: number | null;
  /** Aborting kills the group; the result then says `cancelled`. */
  signal?: AbortSignal;
  /**
   * Asked when `signal` aborts: true lets go of the process instead of killing it, leaving it running and
   * its files in place for whoever adopts it next; the supervision then rejects with the signal's reason.
   */
  letGo?: () => Promise<boolean>;
  /** Called with the newest lines of stdout while it grows. */
  onOutput?: (tail: string) => void | Promise<void>;
  /** Where a process started (not one adopted) is confined; null runs it as the worker's user sees everything. */
  confinement?: Confinement | null;
}

export interface StartOptions extends SupervisionOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** A file the command reads as its standard input (the supervisor's own, which the command inherits); default /dev/null. */
  stdinFile?: string;
  /** Called once the group exists and its record is written, so the group can be recorded too. */
  onSpawn?: (pgid: number) => void | Promise<void>;
}

/** What an earlier attempt left in a run directory. */
export type EarlierProcess =
  { state: 'running' | 'exited'; record: ProcessRecord } | { state: 'gone'; record: ProcessRecord; reason: string } | { state: 'none' };

export function startSupervised(command: string, args: string[], options: StartOptions): Promise<GroupRunResult> {
  const executable = command.includes('/') ? command : findOnPath(command, options.env.PATH ?? '');
  if (!executable) return Promise.resolve(notStarted(`spawn ${command} ENOENT: '${command}' is not on the PATH the process gets`));
  const deadline = Date.now() + options.timeoutMs;
  const argv = options.confinement
    ? confinedArgv(options.confinement, { executable, args, cwd: options.cwd, env: options.env })
    : [executable, ...args];
  return new Promise((resolve, reject) => {
    const child = launch('sh', ['-c', SUPERVISOR_SCRIPT, SUPERVISOR_NAME, options.runDir, String(deadline), ...argv], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      // The supervisor sends the command's output to files; nothing reads its own.
      captureOutput: false,
      stdinFile: options.stdinFile,
    });
    let spawnError: string | null = null;
    const closed = new Promise<ExitStatus>((done) =>
      child.once('close', (exitCode: number | null, signal: NodeJS.Signals | null) => done({ exitCode, signal })),
    );
    child.once('error', (error: Error) => {
      spawnError = error.message;
    });
    child.once('spawn', () => {
      const record: ProcessRecord = { ...(identify(child.pid!) ?? { pid: child.pid!, startTicks: null }), deadline };
      try {
        writeProcessRecord(options.runDir, record);
      } catch (error) {
        // The run directory went away (an attempt that superseded this one removed it): with no record
        // no later attempt could adopt the process, so it goes, and this attempt fails with the reason.
        void killProcessGroup(record.pid, closed);
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      // A launcher that died closes its processes with neither a code nor a signal, though the
      // supervisor, in a session of its own, runs on: it is followed then as an adopted one is.
      const ended = closed.then((status) =>
        status.exitCode === null && status.signal === null ? recordedEnd(record, options.runDir) : status,
      );
      resolve(
        (async () => {
          await options.onSpawn?.(record.pid);
          return follow(record, ended, options);
        })(),
      );
    });
    void closed.then(() => {
      if (child.pid === undefined) resolve(notStarted(spawnError ?? `${command} did not start`));
    });
  });
}

/** Looks at what the attempt before this one left behind in the run directory. */
export function findEarlierProcess(runDir: string): EarlierProcess {
  const record = readProcessRecord(runDir) ?? supervisorRecord(runDir);
  if (!record) return { state: 'none' };
  if (readExitStatus(runDir)) return { state: 'exited', record };
  if (stillRunning(record)) return { state: 'running', record };
  return {
    state: 'gone',
    record,
    reason: `its process (pid ${record.pid}) ended without recording an exit status: the machine restarted or the process was killed`,
  };
}

/** Matches no process's start: the supervisor a run directory names had ended, or its pid was another process's. */
const NO_START = 'none';

/**
 * The record of a supervisor whose worker died before writing it, from what the supervisor wrote of
 * itself: its pid counts as its own only while that process is a supervisor of this run directory.
 */
function supervisorRecord(runDir: string): ProcessRecord | null {
  const start = readSupervisorStart(runDir);
  if (!start) return null;
  const identity = isSupervisorOf(start.pid, runDir) ? identify(start.pid) : null;
  return { pid: start.pid, startTicks: identity ? identity.startTicks : NO_START, deadline: start.deadline };
}

function isSupervisorOf(pid: number, runDir: string): boolean {
  const argv = commandLine(pid);
  // Unreadable: without /proc a live pid is taken for the process, as everywhere else; with it, the pid names no process.
  return argv === null || (argv[3] === SUPERVISOR_NAME && argv[4] === runDir);
}

/** Follows a process an earlier attempt started, to its end, as if this worker had started it. */
export function adoptSupervised(record: ProcessRecord, options: SupervisionOptions): Promise<GroupRunResult> {
  return follow(record, recordedEnd(record, options.runDir), options);
}

/**
 * Settles once the supervisor has recorded the command's exit status or is gone, as seen by a
 * worker that cannot wait on it: how the supervisor itself ended is unknown then.
 */
function recordedEnd(record: ProcessRecord, runDir: string): Promise<ExitStatus> {
  return new Promise<ExitStatus>((done) => {
    const poll = setInterval(() => {
      if (readExitStatus(runDir) || !stillRunning(record)) {
        clearInterval(poll);
        done({ exitCode: null, signal: null });
      }
    }, ADOPTED_POLL_MS);
  });
}

/**
 * Waits for the supervisor to end, enforcing the deadline and cancellation and passing on the
 * tail, then reads what the command left. `ended` says how the supervisor itself ended, which is
 * what counts when it was killed before it could record the command's status.
 */
async function follow(record: ProcessRecord, ended: Promise<ExitStatus>, options: SupervisionOptions): Promise<GroupRunResult> {
  const { runDir } = options;
  let timedOut = false;
  let cancelled = false;
  let idle = false;
  let killing: Promise<void> = Promise.resolve();
  const stop = (why: 'timeout' | 'cancel' | 'idle') => {
    if (why === 'timeout') timedOut = true;
    else if (why === 'cancel') cancelled = true;
    else idle = true;
    killing = killProcessGroup(record.pid, ended);
  };
  const timer = setTimeout(() => stop('timeout'), Math.max(0, record.deadline - Date.now()));
  let tailedSize = 0;
  let tailedAt = 0;
  const ticker = setInterval(() => {
    if (!idle && silentFor(runDir) >= (options.idleMs ?? Infinity)) stop('idle');
    const size = outputSize(runDir, 'stdout');
    if (!options.onOutput || size === tailedSize || Date.now() - tailedAt < OUTPUT_TAIL_MS) return;
    tailedSize = size;
    tailedAt = Date.now();
    // A live view missing one tail is harmless; the record gets the whole output at the end.
    void Promise.resolve(options.onOutput(readOutputTail(runDir, 'stdout', OUTPUT_TAIL_BYTES))).catch(() => undefined);
  }, TICK_MS);
  let letGo: (reason: unknown) => void = () => undefined;
  const lettingGo = new Promise<never>((_, reject) => (letGo = reject));
  const onAbort = () =>
    void (options.letGo?.() ?? Promise.resolve(false)).then((go) => (go ? letGo(options.signal?.reason) : stop('cancel')));
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();

  let supervisor: ExitStatus;
  try {
    supervisor = await Promise.race([ended, lettingGo]);
  } finally {
    clearTimeout(timer);
    clearInterval(ticker);
    options.signal?.removeEventListener('abort', onAbort);
  }
  await killing;
  // Background children the command left would run on unwatched.
  if (isGroupAlive(record.pid)) await killProcessGroup(record.pid);
  const status = readExitStatus(runDir);
  const endedByCanopy = timedOut || cancelled || idle;
  // Without the status the command's end is unknown, unless canopy ended it: the supervisor's own
  // end (killed from outside, its record unwritable) says nothing about the command's.
  const lost = status === null && !endedByCanopy ? lostSupervisor(record.pid, supervisor) : null;
  const noSpace = endedByCanopy || status?.exitCode === 0 ? null : noSpaceIn(runDir, lost !== null);
  const end = status ?? (lost ? { exitCode: null, signal: null } : supervisor);
  return {
    pgid: record.pid,
    ...end,
    stdout: readOutput(runDir, 'stdout'),
    stderr: readOutput(runDir, 'stderr'),
    timedOut,
    cancelled,
    spawnError: null,
    lost,
    noSpace,
    idle: idle ? idleEnd(runDir, options.idleMs!) : null,
  };
}

/** How long since the process's output last grew, judged from the files, so an adopted process keeps its clock. */
function silentFor(runDir: string): number {
  const changes = [outputChangedAt(runDir, 'stdout'), outputChangedAt(runDir, 'stderr')].filter((at) => at !== null);
  return changes.length ? Date.now() - Math.max(...changes) : 0;
}

function idleEnd(runDir: string, idleMs: number): IdleEnd {
  const lastLineOf = (stream: 'stdout' | 'stderr') =>
    readOutputTail(runDir, stream, OUTPUT_TAIL_BYTES)
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .at(-1);
  const streams: ('stdout' | 'stderr')[] = ['stdout', 'stderr'];
  const byRecency = streams.sort((a, b) => (outputChangedAt(runDir, b) ?? 0) - (outputChangedAt(runDir, a) ?? 0));
  const lastLine = byRecency.map(lastLineOf).find((line) => line !== undefined) ?? null;
  return { limitMinutes: idleMs / 60_000, lastLine: lastLine && lastLine.slice(0, 200) };
}

/**
 * Why a command that failed, or whose end went unrecorded, may have: the file system of its run
 * directory is full, so its output stopped there (and the error saying so had nowhere to go).
 */
function noSpaceIn(runDir: string, statusLost: boolean): string | null {
  const free = fullFileSystem(runDir);
  if (free === null) return null;
  const wrote = `${outputSize(runDir, 'stdout')} bytes to stdout and ${outputSize(runDir, 'stderr')} to stderr`;
  const unrecorded = statusLost ? ', and its exit status could not be recorded' : '';
  return `the file system holding ${runDir} is full (${free} bytes free) after the command wrote ${wrote} there${unrecorded}`;
}

function lostSupervisor(pid: number, supervisor: ExitStatus): string {
  if (supervisor.signal) return `its supervisor (pid ${pid}) was killed by ${supervisor.signal} before it recorded the exit status`;
  if (supervisor.exitCode !== null)
    return `its supervisor (pid ${pid}) exited with code ${supervisor.exitCode} before it recorded the exit status`;
  return `its supervisor (pid ${pid}) ended without recording the exit status`;
}

function notStarted(spawnError: string): GroupRunResult {
  return {
    pgid: null,
    exitCode: null,
    signal: null,
    stdout: '',
    stderr: '',
    timedOut: false,
    cancelled: false,
    spawnError,
    lost: null,
    noSpace: null,
    idle: null,
  };
}
