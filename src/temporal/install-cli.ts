// Puts the pinned Temporal CLI into a tools directory for `npm run setup`: the release archive where it can be
// downloaded and verified, else a build with Go.
import { mkdirSync } from 'node:fs';
import { PINNED_TEMPORAL_CLI, TEMPORAL_CLI_MODULE } from './binary';
import { findGo, goInstall } from './go-install';
import { installReleaseArchive, releaseArchive, type ReleaseChecksums } from './release-download';

export interface InstallOptions {
  /** Where `temporal` lands (the project's `.tools/bin`). */
  toolsBin: string;
  env: NodeJS.ProcessEnv;
  platform: string;
  arch: string;
  /** The checksums kept in the repository unless given. */
  checksums?: ReleaseChecksums;
  /** One line of progress or of why a way was given up. */
  log: (line: string) => void;
}

/** True when `temporal` is now in `toolsBin`. */
export async function installTemporalCli(options: InstallOptions): Promise<boolean> {
  if (await downloadRelease(options)) return true;
  const go = findGo(options.env);
  return go !== null && buildWithGo(go, options);
}

async function downloadRelease(options: InstallOptions): Promise<boolean> {
  const started = Date.now();
  const failure = await releaseFailure(options);
  if (failure) options.log(`no Temporal CLI release installed: ${failure}; falling back to go install`);
  else options.log(`Temporal CLI ${PINNED_TEMPORAL_CLI} downloaded, its SHA-256 verified, into ${options.toolsBin} in ${seconds(started)}`);
  return !failure;
}

/** Null once the release's `temporal` is in place, else why it is not. */
async function releaseFailure({ toolsBin, env, platform, arch, checksums, log }: InstallOptions): Promise<string | null> {
  const archive = releaseArchive(env, platform, arch, checksums);
  if ('reason' in archive) return archive.reason;
  log(`downloading ${archive.url}…`);
  return installReleaseArchive(archive, toolsBin);
}

function buildWithGo(go: string, { toolsBin, env, log }: InstallOptions): boolean {
  mkdirSync(toolsBin, { recursive: true });
  const target = `${TEMPORAL_CLI_MODULE}@${PINNED_TEMPORAL_CLI}`;
  log(`building ${target} into ${toolsBin} (minutes the first time, seconds after)…`);
  const started = Date.now();
  const built = goInstall(go, [target], toolsBin, env);
  log(`go install ${built ? 'finished' : 'failed'} after ${seconds(started)}`);
  return built;
}

function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)}s`;
}
