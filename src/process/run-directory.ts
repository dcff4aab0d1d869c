// The private directory of one node run, <home>/runs/<node run id>/ (mode 0700): what the run's
// process reads that must not travel in argv or the environment (large inputs, per-run MCP
// configs) and what it leaves behind. Nothing in it is readable by other local users.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { getSystemErrorMap } from 'node:util';

/** A run directory the filesystem refused to make, fill or remove (a full or read-only disk, a permission taken away). */
export class RunDirectoryError extends Error {
  constructor(
    what: string,
    readonly target: string,
    readonly code: string,
  ) {
    super(`Could not ${what} ${target}: ${code}${describeCode(code)}`);
    this.name = 'RunDirectoryError';
  }
}

export function runDirectoryPath(home: string, nodeRunId: string): string {
  return path.join(runsPath(home), nodeRunId);
}

/**
 * Where runs of one node in one loop keep a CLI home made for canopy's settings, <home>/agent-homes/<loop id>/<hash
 * of the node's name>: one path for all of them, as the CLI's system prompt names it.
 */
export function agentHomePath(home: string, loopId: string, nodeName: string): string {
  const node = createHash('sha256').update(nodeName).digest('hex').slice(0, 16);
  return path.join(agentHomesPath(home), loopId, node);
}

/** The loops that have agent homes in `home`. */
export function agentHomeLoopIds(home: string): string[] {
  return directoriesIn(agentHomesPath(home), 'the agent homes');
}

/** Removes the agent homes of a loop the store no longer has. */
export function removeAgentHomes(home: string, loopId: string): void {
  removeDirectory(path.join(agentHomesPath(home), loopId), 'the agent homes');
}

const agentHomesPath = (home: string) => path.join(home, 'agent-homes');

/** Creates the run's directory (and `<home>/runs`) owner-only; returns its path. */
export function openRunDirectory(home: string, nodeRunId: string): string {
  const dir = runDirectoryPath(home, nodeRunId);
  refusedAs("create the node run's directory", dir, () => mkdirSync(dir, { recursive: true, mode: 0o700 }));
  return dir;
}

/** Writes one owner-only file into the run's directory; returns its path. */
export function writeRunFile(dir: string, name: string, content: string): string {
  const file = path.join(dir, name);
  refusedAs('write the run file', file, () => {
    try {
      writeFileSync(file, content, { mode: 0o600 });
    } catch (error) {
      // What a full disk took of it goes back, so the failure can still be recorded; the first error says why.
      tryToRemove(file);
      throw error;
    }
  });
  return file;
}

export function removeRunDirectory(home: string, nodeRunId: string): void {
  removeDirectory(runDirectoryPath(home, nodeRunId), 'the run directory');
}

/** The node run ids that have a directory under `<home>/runs` (none before the first run). */
export function runDirectoryIds(home: string): string[] {
  return directoriesIn(runsPath(home), 'the run directories');
}

/** The names of the directories in `dir` (none when it does not exist yet). */
function directoriesIn(dir: string, what: string): string[] {
  if (!existsSync(dir)) return [];
  return refusedAs(`list ${what} in`, dir, () => readdirSync(dir, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

function removeDirectory(dir: string, what: string): void {
  refusedAs(`remove ${what}`, dir, () => rmSync(dir, { recursive: true, force: true }));
}

function tryToRemove(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // The disk refuses this too: the sweep at a worker's start removes the directory.
  }
}

function runsPath(home: string): string {
  return path.join(home, 'runs');
}

function refusedAs<T>(what: string, target: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    // Errno codes only: Node's own (ERR_…) say the call itself was wrong.
    if (typeof code !== 'string' || !/^E[A-Z0-9]+$/.test(code)) throw error;
    throw new RunDirectoryError(what, target, code);
  }
}

function describeCode(code: string): string {
  const known = [...getSystemErrorMap().values()].find(([name]) => name === code);
  return known ? ` (${known[1]})` : '';
}
