// The files a supervised process leaves in its run directory: who it is (`supervisor`, written by
// the supervisor as it starts, and `process.json`, written by the worker once it started), what it
// printed (`stdout`, `stderr`) and how it ended (`exit`, written by the supervisor when the command
// ends). A later worker reads them to adopt it.
import { closeSync, openSync, readFileSync, readSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import type { ProcessIdentity } from '../process-identity';

export type OutputStream = 'stdout' | 'stderr';

export interface ProcessRecord extends ProcessIdentity {
  /** When its time limit runs out, in ms since the epoch: an adopting worker keeps the original limit. */
  deadline: number;
}

export interface ExitStatus {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

export const outputPath = (runDir: string, stream: OutputStream): string => path.join(runDir, stream);
export const exitPath = (runDir: string): string => path.join(runDir, 'exit');
const recordPath = (runDir: string): string => path.join(runDir, 'process.json');
const supervisorPath = (runDir: string): string => path.join(runDir, 'supervisor');

export function writeProcessRecord(runDir: string, record: ProcessRecord): void {
  const partial = `${recordPath(runDir)}.part`;
  writeFileSync(partial, JSON.stringify(record), { mode: 0o600 });
  renameSync(partial, recordPath(runDir));
}

export function readProcessRecord(runDir: string): ProcessRecord | null {
  try {
    return JSON.parse(readFileSync(recordPath(runDir), 'utf8')) as ProcessRecord;
  } catch {
    return null;
  }
}

/** What the supervisor wrote of itself as it started ("<pid> <deadline>"), or null before it had. */
export function readSupervisorStart(runDir: string): { pid: number; deadline: number } | null {
  const [pid, deadline] = (wholeLine(supervisorPath(runDir)) ?? '').split(' ').map(Number);
  return Number.isInteger(pid) && pid > 0 && Number.isFinite(deadline) ? { pid, deadline } : null;
}

/**
 * The line the supervisor wrote to `file`, without its newline, or null while it is not written: the
 * supervisor writes a line and its newline at once, so a file without the newline is not whole yet.
 */
function wholeLine(file: string): string | null {
  try {
    const text = readFileSync(file, 'utf8');
    return text.endsWith('\n') ? text.slice(0, -1) : null;
  } catch {
    return null;
  }
}

const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, number]) => [number, name as NodeJS.Signals]));

/** How the command ended, or null while it runs or when it died with its supervisor. */
export function readExitStatus(runDir: string): ExitStatus | null {
  const text = wholeLine(exitPath(runDir));
  if (text === null || !/^\d+$/.test(text)) return null;
  const status = Number(text);
  // The shell reports a command killed by signal N as 128+N.
  const signal = status > 128 ? SIGNAL_NAMES.get(status - 128) : undefined;
  return signal ? { exitCode: null, signal } : { exitCode: status, signal: null };
}

/**
 * What is kept of each stream, the node run's record holding no more: half from its start and half
 * from its end, where agents and test runners put what matters.
 */
export const KEPT_OUTPUT_BYTES = 512 * 1024;

/** A stream's text, whole up to KEPT_OUTPUT_BYTES; past that its head and tail around a line saying how much was cut. */
export function readOutput(runDir: string, stream: OutputStream): string {
  const file = outputPath(runDir, stream);
  const size = outputSize(runDir, stream);
  if (size <= KEPT_OUTPUT_BYTES) return readBytes(file, 0, size);
  const half = KEPT_OUTPUT_BYTES / 2;
  return `${readBytes(file, 0, half)}\n[canopy: ${size - 2 * half} bytes of ${size} cut here]\n${readBytes(file, size - half, half)}`;
}

/** The last `bytes` of a stream, from its first whole line. */
export function readOutputTail(runDir: string, stream: OutputStream, bytes: number): string {
  const size = outputSize(runDir, stream);
  const text = readBytes(outputPath(runDir, stream), Math.max(0, size - bytes), Math.min(size, bytes));
  return size > bytes ? text.slice(text.indexOf('\n') + 1) : text;
}

/** When the stream last grew (its file's mtime, which outlives the worker that watched it); null before it exists. */
export function outputChangedAt(runDir: string, stream: OutputStream): number | null {
  try {
    return statSync(outputPath(runDir, stream)).mtimeMs;
  } catch {
    return null;
  }
}

export function outputSize(runDir: string, stream: OutputStream): number {
  try {
    return statSync(outputPath(runDir, stream)).size;
  } catch {
    return 0;
  }
}

function readBytes(file: string, position: number, length: number): string {
  if (length <= 0) return '';
  const buffer = Buffer.alloc(length);
  const fd = openSync(file, 'r');
  try {
    const read = readSync(fd, buffer, 0, length, position);
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
