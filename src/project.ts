// Where the canopy package lives on disk and which version it is, found from this file upwards.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

function findProjectRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return start;
  }
}

/** The package root, from the sources and from the compiled `dist/` alike. */
export const PROJECT_ROOT = findProjectRoot(__dirname);

/** The `canopy` CLI's entry point, which workers, shims, tests and benches start. */
export const CANOPY_BIN = path.join(PROJECT_ROOT, 'bin', 'canopy.js');

export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}
