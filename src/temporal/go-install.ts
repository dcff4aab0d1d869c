// Builds pinned Go tools into the project with `go install`: the Temporal CLI (`npm run setup`) and
// the Temporal server of `npm run cluster`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { findOnPath } from '../process/find-on-path';

const GO_FALLBACK_LOCATIONS = ['/usr/local/go/bin/go'];

export function findGo(env: NodeJS.ProcessEnv = process.env): string | null {
  return findOnPath('go', env.PATH ?? '') ?? GO_FALLBACK_LOCATIONS.find((candidate) => existsSync(candidate)) ?? null;
}

/** Runs `go install <targets>` with its output shown, the binaries landing in `gobin`; true when it succeeded. */
export function goInstall(go: string, targets: string[], gobin: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const result = spawnSync(go, ['install', ...targets], {
    stdio: 'inherit',
    env: { ...env, GOBIN: gobin, PATH: `${path.dirname(go)}${path.delimiter}${env.PATH ?? ''}` },
  });
  return result.status === 0;
}
