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

/**
 * A compiled file of canopy's, by its path under src/, for what is loaded by path (a forked process, a
 * module the SDK loads itself): the CLI runs from one bundled file, where `__dirname` does not say it.
 */
export const compiledPath = (...parts: string[]): string => path.join(PROJECT_ROOT, 'dist', 'src', ...parts);

/** The flags that print the version, as commander takes them. */
export const VERSION_FLAGS = '-V, --version';

export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}
