// The setup's first way to a Temporal CLI: the pinned release archive, verified and unpacked; anything short of that
// says why in one line and falls back to `go install` (a stand-in `go` on PATH that records how it was called).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { PINNED_TEMPORAL_CLI, TEMPORAL_CLI_MODULE } from '../../src/temporal/binary';
import { freePort } from '../../src/temporal/free-port';
import { installTemporalCli } from '../../src/temporal/install-cli';
import { releaseArchive, TEMPORAL_RELEASES_URL } from '../../src/temporal/release-download';
import { readFileFromTarGz } from '../../src/temporal/tar';
import { PROJECT_ROOT } from '../../src/project';

const VERSION = PINNED_TEMPORAL_CLI.replace(/^v/, '');
const ASSET_PATH = `/${PINNED_TEMPORAL_CLI}/temporal_cli_${VERSION}_linux_amd64.tar.gz`;
const root = mkdtempSync(path.join(os.tmpdir(), 'canopy-release-'));
const cleanups: (() => void)[] = [];
after(() => {
  for (const cleanup of cleanups) cleanup();
  spawnSync('rm', ['-rf', root]);
});

function executable(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  chmodSync(file, 0o755);
  return file;
}

/** A release-shaped archive (`temporal` and `LICENSE` at its top, as the release's are) made by the system's tar. */
function makeArchive(format = 'ustar', entries = ['temporal', 'LICENSE']): Buffer {
  const dir = mkdtempSync(path.join(root, 'archive-'));
  const contents = path.join(dir, 'contents');
  executable(path.join(contents, 'temporal'), `#!/bin/sh\necho "temporal version ${VERSION} (test archive)"\n`);
  writeFileSync(path.join(contents, 'LICENSE'), 'MIT\n');
  const archive = path.join(dir, 'release.tar.gz');
  const tar = spawnSync('tar', [`--format=${format}`, '-czf', archive, '-C', contents, ...entries], { encoding: 'utf8' });
  assert.equal(tar.status, 0, tar.stderr);
  return readFileSync(archive);
}

const ARCHIVE = makeArchive();
const SHA256 = createHash('sha256').update(ARCHIVE).digest('hex');
const CHECKSUMS = { [PINNED_TEMPORAL_CLI]: { linux_amd64: SHA256 } };

interface Server {
  url: string;
  requests: string[];
}

/** Serves the release's asset path the way GitHub does: a redirect to where the bytes are. */
async function releaseServer(body: Buffer): Promise<Server> {
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(request.url ?? '');
    if (request.url === ASSET_PATH) response.writeHead(302, { location: '/objects/release.tar.gz' }).end();
    else if (request.url === '/objects/release.tar.gz') response.writeHead(200, { 'content-length': body.length }).end(body);
    else response.writeHead(404).end();
  });
  return { url: await listen(server), requests };
}

/** Accepts every connection and never sends a byte. */
async function silentServer(): Promise<Server> {
  const requests: string[] = [];
  const server = net.createServer((socket) => requests.push(`connection from ${socket.remotePort}`));
  return { url: await listen(server), requests };
}

async function listen(server: net.Server): Promise<string> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket) => sockets.add(socket));
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

/** A `go` that records its arguments and "builds" a temporal into $GOBIN, first on a PATH with the system's tools. */
function standInGo(dir: string): { path: string; args: () => string | null } {
  const argsFile = path.join(dir, 'go-args');
  const goBin = path.dirname(
    executable(
      path.join(dir, 'go-bin', 'go'),
      `#!/bin/sh\necho "$@" > '${argsFile}'\nprintf '#!/bin/sh\\necho built by go install\\n' > "$GOBIN/temporal"\nchmod 755 "$GOBIN/temporal"\n`,
    ),
  );
  return {
    path: [goBin, '/usr/bin', '/bin'].join(path.delimiter),
    args: () => (existsSync(argsFile) ? readFileSync(argsFile, 'utf8').trim() : null),
  };
}

interface Installed {
  installed: boolean;
  lines: string[];
  /** The one line that says why the download was given up, or undefined when none does. */
  fallback: string | undefined;
  toolsBin: string;
  /** The arguments the stand-in `go` was run with, or null when it never ran. */
  goArgs: string | null;
}

async function install(
  releaseUrl: string,
  options: { platform?: NodeJS.Platform; arch?: string; checksums?: Record<string, Record<string, string>> } = {},
): Promise<Installed> {
  const dir = mkdtempSync(path.join(root, 'project-'));
  const toolsBin = path.join(dir, '.tools', 'bin');
  const go = standInGo(dir);
  const lines: string[] = [];
  const installed = await installTemporalCli({
    toolsBin,
    env: { PATH: go.path, CANOPY_TEMPORAL_RELEASE_URL: releaseUrl },
    platform: options.platform ?? 'linux',
    arch: options.arch ?? 'x64',
    checksums: options.checksums ?? CHECKSUMS,
    log: (line) => lines.push(line),
  });
  const fallbacks = lines.filter((line) => line.includes('falling back to go install'));
  assert.ok(fallbacks.length <= 1, `one line says why, not ${fallbacks.length}:\n${lines.join('\n')}`);
  return {
    installed,
    lines,
    fallback: fallbacks[0],
    toolsBin,
    goArgs: go.args(),
  };
}

function runTemporal(toolsBin: string): string {
  const run = spawnSync(path.join(toolsBin, 'temporal'), ['--version'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.trim();
}

function assertFellBack(result: Installed, reason: RegExp): void {
  assert.ok(result.fallback, `a line says the download was given up:\n${result.lines.join('\n')}`);
  assert.match(result.fallback, reason);
  assert.equal(result.lines.filter((line) => reason.test(line)).length, 1, `said once:\n${result.lines.join('\n')}`);
  assert.equal(result.goArgs, `install ${TEMPORAL_CLI_MODULE}@${PINNED_TEMPORAL_CLI}`);
  assert.equal(result.installed, true);
  assert.equal(runTemporal(result.toolsBin), 'built by go install');
}

describe('the Temporal CLI from its release archive', () => {
  it('downloads the platform’s archive from the release location, checks its SHA-256 and unpacks a temporal that runs', async () => {
    const server = await releaseServer(ARCHIVE);
    const result = await install(server.url);
    assert.equal(result.fallback, undefined, result.lines.join('\n'));
    assert.equal(result.goArgs, null, 'go install never ran');
    assert.equal(result.installed, true);
    assert.deepEqual(server.requests, [ASSET_PATH, '/objects/release.tar.gz']);
    assert.equal(runTemporal(result.toolsBin), `temporal version ${VERSION} (test archive)`);
  });

  it('refuses an archive whose checksum does not match, in one line, and falls back to go install', async () => {
    const corrupted = Buffer.from(ARCHIVE);
    corrupted[corrupted.length - 9] ^= 0xff;
    const result = await install((await releaseServer(corrupted)).url);
    assertFellBack(result, /checksum mismatch/);
    assert.ok(result.fallback?.includes(SHA256), result.fallback);
  });

  it('says in one line that the release location refused the connection, and falls back to go install', async () => {
    const result = await install(`http://127.0.0.1:${await freePort()}`);
    assertFellBack(result, /ECONNREFUSED/);
  });

  it('gives up on a server that accepts the connection and never answers, and falls back to go install', async () => {
    const server = await silentServer();
    const result = await install(server.url);
    assertFellBack(result, /did not answer/);
    assert.equal(server.requests.length, 1);
  });

  it('takes a platform the release has no archive for as unknown, asking nothing of the release location', async () => {
    const server = await releaseServer(ARCHIVE);
    const result = await install(server.url, { platform: 'freebsd' });
    assertFellBack(result, /unknown platform freebsd\/x64/);
    assert.deepEqual(server.requests, []);
  });

  it('never installs unverified: a platform with no checksum kept is an unknown platform too', async () => {
    const server = await releaseServer(ARCHIVE);
    const result = await install(server.url, { platform: 'darwin', arch: 'arm64' });
    assertFellBack(result, /unknown platform darwin\/arm64/);
    assert.deepEqual(server.requests, []);
  });
});

describe('the release archives canopy trusts', () => {
  it('keeps a checksum of the pinned release for linux and macOS on amd64 and arm64, at the release’s asset names', () => {
    for (const platform of ['linux', 'darwin']) {
      for (const [arch, name] of [
        ['x64', 'amd64'],
        ['arm64', 'arm64'],
      ]) {
        const archive = releaseArchive({}, platform, arch);
        assert.deepEqual(Object.keys(archive), ['url', 'sha256'], `${platform}/${arch}: ${JSON.stringify(archive)}`);
        const { url, sha256 } = archive as { url: string; sha256: string };
        assert.equal(url, `${TEMPORAL_RELEASES_URL}/${PINNED_TEMPORAL_CLI}/temporal_cli_${VERSION}_${platform}_${name}.tar.gz`);
        assert.match(sha256, /^[0-9a-f]{64}$/);
      }
    }
  });

  it('reads the binary out of a GNU-format archive whose entries start with ./, too', () => {
    const binary = readFileFromTarGz(makeArchive('gnu', ['.']), 'temporal');
    assert.match(binary?.toString() ?? '', /temporal version .* \(test archive\)/);
    assert.equal(readFileFromTarGz(ARCHIVE, 'missing'), null);
  });
});

describe('npm run setup with a Temporal CLI already resolvable', () => {
  it('keeps that binary and asks nothing of the release location', async () => {
    const server = await releaseServer(ARCHIVE);
    const binary = executable(path.join(root, 'chosen', 'temporal'), '#!/bin/sh\necho chosen\n');
    const setup = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'src', 'setup.js'), '--require'], {
      env: { ...process.env, CANOPY_TEMPORAL_BIN: binary, CANOPY_TEMPORAL_RELEASE_URL: server.url },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    setup.stdout.on('data', (chunk) => (stdout += chunk));
    const code = await new Promise((resolve) => setup.once('close', resolve));
    assert.equal(code, 0);
    assert.equal(stdout.trim(), `canopy setup: Temporal CLI ${binary} (from CANOPY_TEMPORAL_BIN)`);
    assert.deepEqual(server.requests, []);
  });
});

describe('npm run setup with CANOPY_SKIP_TEMPORAL_CLI=1', () => {
  /** The compiled setup in a project of its own, so the .tools it fills is that project's. */
  async function setupInCopy(env: Record<string, string>) {
    const dir = mkdtempSync(path.join(root, 'setup-'));
    cpSync(path.join(PROJECT_ROOT, 'dist', 'src'), path.join(dir, 'dist', 'src'), { recursive: true });
    cpSync(path.join(PROJECT_ROOT, 'package.json'), path.join(dir, 'package.json'));
    const server = await releaseServer(ARCHIVE);
    const go = standInGo(dir);
    // Spawned, not spawnSync: the release server answers from this process's event loop.
    const child = spawn(process.execPath, [path.join(dir, 'dist', 'src', 'setup.js')], {
      env: { PATH: go.path, CANOPY_TEMPORAL_RELEASE_URL: server.url, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const setup = { status: null as number | null, stdout: '', stderr: '' };
    child.stdout.on('data', (chunk) => (setup.stdout += chunk));
    child.stderr.on('data', (chunk) => (setup.stderr += chunk));
    setup.status = await new Promise((resolve) => child.once('close', resolve));
    return { setup, requests: server.requests, goArgs: go.args(), tools: path.join(dir, '.tools') };
  }

  it('installs no Temporal CLI, asking nothing of the release location or go, and says so in one line', async () => {
    const { setup, requests, goArgs, tools } = await setupInCopy({ CANOPY_SKIP_TEMPORAL_CLI: '1' });
    assert.equal(setup.status, 0, setup.stderr);
    assert.equal(
      setup.stdout,
      'canopy setup: CANOPY_SKIP_TEMPORAL_CLI=1: no Temporal CLI installed; canopy uses the server at TEMPORAL_ADDRESS\n',
    );
    assert.deepEqual(requests, []);
    assert.equal(goArgs, null);
    assert.equal(existsSync(tools), false);
  });

  it('without it, the same copy asks the release location, then go, for one', async () => {
    const { setup, requests, goArgs, tools } = await setupInCopy({});
    assert.equal(setup.status, 0, setup.stderr);
    assert.deepEqual(requests, [ASSET_PATH, '/objects/release.tar.gz']);
    assert.equal(goArgs, `install ${TEMPORAL_CLI_MODULE}@${PINNED_TEMPORAL_CLI}`, 'the test archive fails the kept checksum');
    assert.ok(existsSync(path.join(tools, 'bin', 'temporal')));
  });
});
