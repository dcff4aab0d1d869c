// Which process a pid names. A pid is reused once its process is gone, so the process's start time
// (clock ticks since boot, from /proc) tells the process canopy started from a later stranger.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessIdentity {
  pid: number;
  /** Null where the system has no /proc: the pid alone then identifies the process. */
  startTicks: string | null;
}

/** The identity of the live process `pid`, or null when there is none (a zombie counts as none). */
export function identify(pid: number): ProcessIdentity | null {
  const fields = statFields(pid);
  if (fields === 'no-proc') return isSignalable(pid) ? { pid, startTicks: null } : null;
  if (!fields || fields[0] === 'Z') return null;
  return { pid, startTicks: fields[19] ?? null };
}

/** Whether the process recorded as `recorded` still runs: same pid, same start. */
export function stillRunning(recorded: ProcessIdentity): boolean {
  const now = identify(recorded.pid);
  return now !== null && (recorded.startTicks === null || now.startTicks === recorded.startTicks);
}

/** The arguments `pid` was started with, or null where they cannot be read (no /proc, or no such process). */
export function commandLine(pid: number): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return null;
  }
}

/**
 * Whether a process group has a member that is not a zombie. A process whose parent died is
 * reparented to the machine's init, and where that init does not reap (a container's first
 * process often does not), the zombie keeps the group signalable long after its work ended.
 */
export function groupHasLiveMember(pgid: number): boolean {
  if (!hasProc()) return true;
  for (const entry of liveProcesses()) if (entry.pgid === pgid) return true;
  return false;
}

/**
 * The process groups, other than `pgid`, of the live processes descended from its members: a
 * command can start a helper in a group or session of its own (codex does, for the shell it
 * inspects), out of reach of a signal to its group. Found through their parents, so only while
 * those run.
 */
export function groupsDescendedFrom(pgid: number): number[] {
  if (!hasProc()) return [];
  const processes = [...liveProcesses()];
  const childrenOf = new Map<number, ProcessEntry[]>();
  for (const entry of processes) {
    const siblings = childrenOf.get(entry.ppid);
    if (siblings) siblings.push(entry);
    else childrenOf.set(entry.ppid, [entry]);
  }
  const seen = new Set<number>();
  const groups = new Set<number>();
  const queue = processes.filter((entry) => entry.pgid === pgid);
  for (let entry = queue.pop(); entry; entry = queue.pop()) {
    if (seen.has(entry.pid)) continue;
    seen.add(entry.pid);
    if (entry.pgid !== pgid) groups.add(entry.pgid);
    queue.push(...(childrenOf.get(entry.pid) ?? []));
  }
  return [...groups];
}

interface ProcessEntry {
  pid: number;
  ppid: number;
  pgid: number;
}

/** Every process but the zombies, from /proc, read one by one so a search can stop at what it looks for. */
function* liveProcesses(): Generator<ProcessEntry> {
  for (const name of readdirSync('/proc')) {
    if (name.charCodeAt(0) > 57) continue;
    const fields = statFields(Number(name));
    if (Array.isArray(fields) && fields[0] !== 'Z') yield { pid: Number(name), ppid: Number(fields[1]), pgid: Number(fields[2]) };
  }
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid: number): string[] | null | 'no-proc' {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat
      .slice(stat.lastIndexOf(')') + 2)
      .trim()
      .split(' ');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !hasProc()) return 'no-proc';
    return null;
  }
}

let procMounted: boolean | undefined;
function hasProc(): boolean {
  if (procMounted === undefined) {
    try {
      readFileSync('/proc/self/stat');
      procMounted = true;
    } catch {
      procMounted = false;
    }
  }
  return procMounted;
}

function isSignalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
