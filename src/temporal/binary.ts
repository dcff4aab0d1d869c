// Finds the Temporal CLI: $CANOPY_TEMPORAL_BIN, `temporal` on PATH, then the project's own (downloaded or built).
import path from 'node:path';
import { findOnPath, isExecutable } from '../process/find-on-path';
import { PROJECT_ROOT } from '../project';

export const PINNED_TEMPORAL_CLI = 'v1.5.1';
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';

export type BinarySource = 'CANOPY_TEMPORAL_BIN' | 'PATH' | 'project build';

export interface ResolvedBinary {
  path: string;
  source: BinarySource;
}

export const PROJECT_TOOLS_BIN = path.join(PROJECT_ROOT, '.tools', 'bin');

export function resolveTemporalBinary(env: NodeJS.ProcessEnv = process.env, projectBin = PROJECT_TOOLS_BIN): ResolvedBinary | null {
  if (env.CANOPY_TEMPORAL_BIN) {
    return isExecutable(env.CANOPY_TEMPORAL_BIN) ? { path: path.resolve(env.CANOPY_TEMPORAL_BIN), source: 'CANOPY_TEMPORAL_BIN' } : null;
  }
  const onPath = findOnPath('temporal', env.PATH ?? '');
  if (onPath) return { path: onPath, source: 'PATH' };
  const local = path.join(projectBin, 'temporal');
  if (isExecutable(local)) return { path: local, source: 'project build' };
  return null;
}

/** Explains a failed resolution: what was tried and what to install. */
export function missingBinaryMessage(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CANOPY_TEMPORAL_BIN) {
    return `CANOPY_TEMPORAL_BIN is set to '${env.CANOPY_TEMPORAL_BIN}', which is not an executable file. Point it at a Temporal CLI binary or unset it.`;
  }
  return [
    'No Temporal CLI found (looked at $CANOPY_TEMPORAL_BIN, `temporal` on PATH, .tools/bin/temporal).',
    `Run \`npm run setup\`: it downloads the Temporal CLI ${PINNED_TEMPORAL_CLI} release (from GitHub, or $CANOPY_TEMPORAL_RELEASE_URL),`,
    `or where that cannot be reached builds ${TEMPORAL_CLI_MODULE}@${PINNED_TEMPORAL_CLI} with Go (https://go.dev/dl);`,
    'or install the Temporal CLI yourself and put `temporal` on PATH, or set TEMPORAL_ADDRESS to use an existing server.',
  ].join('\n');
}
