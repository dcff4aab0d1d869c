// The `canopy` command an agent finds on PATH: a shim in the run's directory that runs this canopy,
// so `canopy node complete|block` works whether or not canopy is installed, with the run token alone.
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../project';
import { writeRunFile } from './run-directory';

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** Writes `<run dir>/canopy`; returns the directory to put first on the agent's PATH. */
export function writeCanopyShim(runDir: string): string {
  const bin = path.join(PROJECT_ROOT, 'bin', 'canopy.js');
  const file = writeRunFile(runDir, 'canopy', `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(bin)} "$@"\n`);
  chmodSync(file, 0o700);
  return runDir;
}
