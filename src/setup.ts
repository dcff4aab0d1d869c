// `npm run setup` (also run on install): makes sure a Temporal CLI exists, building the pinned one with Go if needed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  PINNED_TEMPORAL_CLI,
  PROJECT_TOOLS_BIN,
  TEMPORAL_CLI_MODULE,
  findOnPath,
  missingBinaryMessage,
  resolveTemporalBinary,
} from './temporal/binary';

const GO_FALLBACK_LOCATIONS = ['/usr/local/go/bin/go'];

function findGo(): string | null {
  return findOnPath('go', process.env.PATH ?? '') ?? GO_FALLBACK_LOCATIONS.find((candidate) => existsSync(candidate)) ?? null;
}

function buildTemporalCli(go: string): boolean {
  mkdirSync(PROJECT_TOOLS_BIN, { recursive: true });
  const target = `${TEMPORAL_CLI_MODULE}@${PINNED_TEMPORAL_CLI}`;
  console.log(`canopy setup: building ${target} into ${PROJECT_TOOLS_BIN} (minutes the first time, seconds after)…`);
  const started = Date.now();
  const result = spawnSync(go, ['install', target], {
    stdio: 'inherit',
    env: { ...process.env, GOBIN: PROJECT_TOOLS_BIN, PATH: `${path.dirname(go)}${path.delimiter}${process.env.PATH ?? ''}` },
  });
  console.log(`canopy setup: go install finished in ${((Date.now() - started) / 1000).toFixed(1)}s with exit code ${result.status}`);
  return result.status === 0;
}

function main(): number {
  // --require makes a missing binary an error (CI); a plain install only warns, since
  // TEMPORAL_ADDRESS may point at a server and no local binary is needed.
  const required = process.argv.includes('--require');
  const found = resolveTemporalBinary();
  if (found) {
    console.log(`canopy setup: Temporal CLI ${found.path} (from ${found.source})`);
    return 0;
  }
  const go = process.env.CANOPY_TEMPORAL_BIN ? null : findGo();
  if (go && buildTemporalCli(go)) {
    const built = resolveTemporalBinary();
    if (built) {
      console.log(`canopy setup: Temporal CLI ${built.path} (from ${built.source})`);
      return 0;
    }
  }
  console[required ? 'error' : 'warn'](`canopy setup: ${missingBinaryMessage()}`);
  return required ? 1 : 0;
}

process.exitCode = main();
