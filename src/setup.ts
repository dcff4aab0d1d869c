// `npm run setup` (also run on install): makes sure a Temporal CLI exists, building the pinned one with Go if needed.
import { mkdirSync } from 'node:fs';
import {
  PINNED_TEMPORAL_CLI,
  PROJECT_TOOLS_BIN,
  TEMPORAL_CLI_MODULE,
  missingBinaryMessage,
  resolveTemporalBinary,
} from './temporal/binary';
import { findGo, goInstall } from './temporal/go-install';

function buildTemporalCli(go: string): boolean {
  mkdirSync(PROJECT_TOOLS_BIN, { recursive: true });
  const target = `${TEMPORAL_CLI_MODULE}@${PINNED_TEMPORAL_CLI}`;
  console.log(`canopy setup: building ${target} into ${PROJECT_TOOLS_BIN} (minutes the first time, seconds after)…`);
  const started = Date.now();
  const built = goInstall(go, [target], PROJECT_TOOLS_BIN);
  console.log(`canopy setup: go install ${built ? 'finished' : 'failed'} after ${((Date.now() - started) / 1000).toFixed(1)}s`);
  return built;
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
