// `npm run setup` (also run on install): makes sure a Temporal CLI exists, installing the pinned one if needed,
// unless CANOPY_SKIP_TEMPORAL_CLI=1 (a worker image, whose worker uses its cluster's server).
import { PROJECT_TOOLS_BIN, missingBinaryMessage, resolveTemporalBinary } from './temporal/binary';
import { installTemporalCli } from './temporal/install-cli';

async function main(): Promise<number> {
  if (process.env.CANOPY_SKIP_TEMPORAL_CLI === '1') {
    console.log('canopy setup: CANOPY_SKIP_TEMPORAL_CLI=1: no Temporal CLI installed; canopy uses the server at TEMPORAL_ADDRESS');
    return 0;
  }
  // --require makes a missing binary an error (CI); a plain install only warns, since
  // TEMPORAL_ADDRESS may point at a server and no local binary is needed.
  const required = process.argv.includes('--require');
  const found = resolveTemporalBinary();
  if (found) {
    console.log(`canopy setup: Temporal CLI ${found.path} (from ${found.source})`);
    return 0;
  }
  // A CANOPY_TEMPORAL_BIN that names no executable wins over anything installed here, so installing would not help.
  const installed =
    !process.env.CANOPY_TEMPORAL_BIN &&
    (await installTemporalCli({
      toolsBin: PROJECT_TOOLS_BIN,
      env: process.env,
      platform: process.platform,
      arch: process.arch,
      log: (line) => console.log(`canopy setup: ${line}`),
    }));
  const built = installed ? resolveTemporalBinary() : null;
  if (built) {
    console.log(`canopy setup: Temporal CLI ${built.path} (from ${built.source})`);
    return 0;
  }
  console[required ? 'error' : 'warn'](`canopy setup: ${missingBinaryMessage()}`);
  return required ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error('canopy setup:', error);
    process.exitCode = 1;
  },
);
