// The `canopy` command an agent finds on PATH: a shim in the run's directory that runs this canopy,
// so `canopy node complete|block` works whether or not canopy is installed, with the run token alone.
import { chmodSync } from 'node:fs';
import { CANOPY_BIN } from '../project';
import { writeRunFile } from '../process/run-directory';

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** Writes `<run dir>/canopy`; returns the directory to put first on the agent's PATH. */
export function writeCanopyShim(runDir: string): string {
  const file = writeRunFile(runDir, 'canopy', `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(CANOPY_BIN)} "$@"\n`);
  chmodSync(file, 0o700);
  return runDir;
}
