// The pinned Temporal CLI from its official release archive: seconds to download where `go install` takes minutes.
// The archive is trusted only when its SHA-256 matches the one kept in the repository for that version and platform,
// so a platform without a kept checksum is one this cannot install.
import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PINNED_TEMPORAL_CLI } from './binary';
import { download } from './download';
import { readFileFromTarGz } from './tar';
import KEPT_CHECKSUMS from './temporal-cli-checksums.json';

/** Version (`v1.5.1`) to release platform (`linux_amd64`) to the SHA-256 of its archive, as the release's checksums.txt lists them. */
export type ReleaseChecksums = Record<string, Record<string, string>>;

/** Where the temporalio/cli releases keep their assets, one folder per tag. */
export const TEMPORAL_RELEASES_URL = 'https://github.com/temporalio/cli/releases/download';

export interface ReleaseArchive {
  url: string;
  sha256: string;
}

/** The release's name of a Node platform and architecture, as its archives are named. */
function releasePlatform(platform: string, arch: string): string {
  return `${platform}_${{ x64: 'amd64' }[arch] ?? arch}`;
}

/** The pinned release's archive for this platform, or why there is none to trust. */
export function releaseArchive(
  env: NodeJS.ProcessEnv,
  platform: string,
  arch: string,
  checksums: ReleaseChecksums = KEPT_CHECKSUMS,
): ReleaseArchive | { reason: string } {
  const name = releasePlatform(platform, arch);
  const sha256 = checksums[PINNED_TEMPORAL_CLI]?.[name];
  if (!sha256)
    return { reason: `unknown platform ${platform}/${arch}: no checksum of a Temporal CLI ${PINNED_TEMPORAL_CLI} archive for it` };
  const base = (env.CANOPY_TEMPORAL_RELEASE_URL || TEMPORAL_RELEASES_URL).replace(/\/+$/, '');
  const version = PINNED_TEMPORAL_CLI.replace(/^v/, '');
  return { url: `${base}/${PINNED_TEMPORAL_CLI}/temporal_cli_${version}_${name}.tar.gz`, sha256 };
}

/** Downloads and verifies the archive and puts its `temporal` into `toolsBin`; null when done, else why not, in one line. */
export async function installReleaseArchive({ url, sha256 }: ReleaseArchive, toolsBin: string): Promise<string | null> {
  try {
    const archive = await download(url);
    const actual = createHash('sha256').update(archive).digest('hex');
    if (actual !== sha256) return `checksum mismatch for ${url}: expected sha256 ${sha256}, got ${actual}`;
    const binary = readFileFromTarGz(archive, 'temporal');
    if (!binary) return `${url} holds no temporal binary`;
    writeExecutable(path.join(toolsBin, 'temporal'), binary);
    return null;
  } catch (error) {
    // Whatever stopped the download, the unpacking or the writing, the go install is still worth trying.
    return (error as Error).message;
  }
}

/** Written aside and renamed, so an interrupted install never leaves a half-written executable that resolves. */
function writeExecutable(file: string, contents: Buffer): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.partial-${process.pid}`;
  try {
    writeFileSync(partial, contents, { mode: 0o755 });
    renameSync(partial, file);
  } finally {
    rmSync(partial, { force: true });
  }
}
