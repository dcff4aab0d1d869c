// The private directory of one node run, <home>/runs/<node run id>/ (mode 0700): what the run's
// process reads that must not travel in argv or the environment (large inputs, per-run MCP
// configs) and what it leaves behind. Nothing in it is readable by other local users.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function runDirectoryPath(home: string, nodeRunId: string): string {
  return path.join(home, 'runs', nodeRunId);
}

/** Creates the run's directory (and `<home>/runs`) owner-only; returns its path. */
export function openRunDirectory(home: string, nodeRunId: string): string {
  const dir = runDirectoryPath(home, nodeRunId);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** Writes one owner-only file into the run's directory; returns its path. */
export function writeRunFile(dir: string, name: string, content: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, content, { mode: 0o600 });
  return file;
}

export function removeRunDirectory(home: string, nodeRunId: string): void {
  rmSync(runDirectoryPath(home, nodeRunId), { recursive: true, force: true });
}
