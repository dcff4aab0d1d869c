// The Temporal server and its SQL schema tool, built with Go into .tools/bin at the pinned release
// (as `npm run setup` builds the Temporal CLI); a binary already there at that release is kept.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_TOOLS_BIN } from '../../src/temporal/binary';
import { findGo, goInstall } from '../../src/temporal/go-install';

/** docker-compose.yml runs the images of this release: temporalio/server and temporalio/admin-tools. */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';

interface ClusterBinary {
  /** Its name in .tools/bin. */
  name: string;
  module: string;
  /** The name `go install` gives it: the last element of the module path. */
  installedAs: string;
}

const SERVER: ClusterBinary = { name: 'temporal-server', module: 'go.temporal.io/server/cmd/server', installedAs: 'server' };
const SQL_TOOL: ClusterBinary = { name: 'temporal-sql-tool', module: 'go.temporal.io/server/cmd/tools/sql', installedAs: 'sql' };

export interface ClusterBinaries {
  server: string;
  sqlTool: string;
  /** How long `go install` took, or null when both binaries were already built. */
  buildMs: number | null;
}

export function ensureClusterBinaries(progress: (line: string) => void): ClusterBinaries {
  const missing = [SERVER, SQL_TOOL].filter((binary) => !isPinnedBuild(binaryPath(binary)));
  let buildMs: number | null = null;
  if (missing.length > 0) {
    const started = Date.now();
    build(missing, progress);
    buildMs = Date.now() - started;
  }
  return { server: binaryPath(SERVER), sqlTool: binaryPath(SQL_TOOL), buildMs };
}

function binaryPath(binary: ClusterBinary): string {
  return path.join(PROJECT_TOOLS_BIN, binary.name);
}

/** Both tools print `<name> version 1.29.1`. */
function isPinnedBuild(file: string): boolean {
  if (!existsSync(file)) return false;
  const result = spawnSync(file, ['--version'], { encoding: 'utf8' });
  return result.status === 0 && result.stdout.trim().endsWith(` version ${TEMPORAL_SERVER_VERSION.replace(/^v/, '')}`);
}

function build(binaries: ClusterBinary[], progress: (line: string) => void): void {
  const go = findGo();
  if (!go) throw new Error('The cluster needs Go to build the Temporal server: install it from https://go.dev/dl.');
  const targets = binaries.map((binary) => `${binary.module}@${TEMPORAL_SERVER_VERSION}`);
  progress(`Building ${targets.join(' and ')} into ${PROJECT_TOOLS_BIN} (minutes the first time, seconds after)…`);
  mkdirSync(PROJECT_TOOLS_BIN, { recursive: true });
  // go install names them `server` and `sql`: build beside .tools/bin, then move them in under their own names.
  const staging = mkdtempSync(path.join(path.dirname(PROJECT_TOOLS_BIN), 'go-install-'));
  try {
    if (!goInstall(go, targets, staging)) throw new Error(`go install ${targets.join(' ')} failed.`);
    for (const binary of binaries) renameSync(path.join(staging, binary.installedAs), binaryPath(binary));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
