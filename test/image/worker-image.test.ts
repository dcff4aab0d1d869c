// The worker image's build steps, docker/worker-image.sh, run in a copy of the repository as the Dockerfile runs
// them in the image, and what they leave there: no Temporal CLI, the pinned agent CLIs on the image's PATH, and a
// canopy that runs. Minutes: npm ci (from the npm cache where it can), the build and the agents' install.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { PINNED_AGENT_PACKAGES } from '../../src/agents/pinned';
import { packageVersion, PROJECT_ROOT } from '../../src/project';
import { testTemporalAddress } from '../helpers/engine';
import { homeOnlyEnv, spawnCanopy, waitForOutput } from '../helpers/processes';
import { DOCKERFILE, imageEnv, imageWorkdir, WORKER_IMAGE_SCRIPT } from '../docker/dockerfile';

const copy = mkdtempSync(path.join(os.tmpdir(), 'canopy-worker-image-'));
const dockerfile = readFileSync(DOCKERFILE, 'utf8');
/** The image's PATH, with the copy where the image has canopy. */
const imagePath = imageEnv(dockerfile)
  .PATH.replaceAll(imageWorkdir(dockerfile), copy)
  .replace('$PATH', process.env.PATH ?? '');
let buildOutput = '';

/** The repository's tracked files as the checkout has them (never node_modules, dist or .tools). */
function copyRepository(): void {
  const tar = spawnSync('sh', ['-c', `git ls-files -z --cached | tar --null -T - -cf - | tar -xf - -C '${copy}'`], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  });
  assert.equal(tar.status, 0, tar.stderr);
}

/**
 * Stands in for the GitHub release the image's install downloads better-sqlite3's native module from, with the one
 * this checkout's install made: without it, the offline install compiles SQLite, a minute on two cores.
 */
async function prebuiltSqliteHost(): Promise<{ url: string; close: () => void }> {
  const tarball = spawnSync('tar', ['-czf', '-', 'build/Release/better_sqlite3.node'], {
    cwd: path.dirname(require.resolve('better-sqlite3/package.json')),
  }).stdout;
  const server = http.createServer((request, response) => {
    if (request.url?.endsWith('.tar.gz')) response.writeHead(200, { 'content-length': tarball.length }).end(tarball);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/** This process's environment less what an `npm test` around it sets (npm_config_allow_scripts among them): the image's npm runs in none. */
function imageBuildEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_')));
}

before(async () => {
  copyRepository();
  const sqlite = await prebuiltSqliteHost();
  try {
    const script = spawn('sh', [path.join(copy, WORKER_IMAGE_SCRIPT), copy], {
      env: { ...imageBuildEnv(), npm_config_prefer_offline: 'true', npm_config_better_sqlite3_binary_host: sqlite.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    script.stdout.on('data', (chunk) => (buildOutput += chunk));
    script.stderr.on('data', (chunk) => (buildOutput += chunk));
    const status = await new Promise((resolve) => script.once('close', resolve));
    assert.equal(status, 0, buildOutput);
  } finally {
    sqlite.close();
  }
});

after(() => spawnSync('rm', ['-rf', copy]));

it('installs no Temporal CLI, saying so: .tools holds only the agents', () => {
  assert.match(buildOutput, /canopy setup: CANOPY_SKIP_TEMPORAL_CLI=1: no Temporal CLI installed/);
  assert.deepEqual(readdirSync(path.join(copy, '.tools')), ['agents']);
});

it('installs each agent CLI at its pinned version, and the image’s PATH runs it', () => {
  for (const [binary, pin] of Object.entries(PINNED_AGENT_PACKAGES)) {
    const run = spawnSync(binary, ['--version'], { env: { ...process.env, PATH: imagePath }, encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, `${binary}: ${run.stderr}`);
    assert.ok(run.stdout.includes(pin.version), `${binary} --version printed ${run.stdout.trim()}, want ${pin.version}`);
  }
});

it('leaves a canopy that runs: its version, doctor finding the agents and the store, a worker polling', async () => {
  const bin = path.join(copy, 'bin', 'canopy.js');
  const home = mkdtempSync(path.join(os.tmpdir(), 'canopy-home-'));
  const env = homeOnlyEnv(home, {
    PATH: imagePath,
    TEMPORAL_ADDRESS: testTemporalAddress(),
    CANOPY_TASK_QUEUE: `worker-image-${path.basename(home)}`,
  });
  const version = spawnSync(process.execPath, [bin, '--version'], { env, encoding: 'utf8' });
  assert.equal(version.stdout.trim(), packageVersion());

  const doctor = spawnSync(process.execPath, [bin, 'doctor', '--json'], { env, encoding: 'utf8' });
  const report = JSON.parse(doctor.stdout) as { platforms: { name: string; path: string }[]; store: { ok: boolean } };
  const agentsBin = path.join(copy, '.tools', 'agents', 'node_modules', '.bin');
  assert.deepEqual(
    report.platforms.map((platform) => [platform.name, platform.path]),
    Object.keys(PINNED_AGENT_PACKAGES).map((name) => [name, path.join(agentsBin, name)]),
  );
  assert.equal(report.store.ok, true, 'the native SQLite module loads');

  const worker = spawnCanopy(['worker'], env, bin);
  try {
    await waitForOutput(worker, /Worker polling task queue/);
  } finally {
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
});

it('leaves out the dev dependencies', () => {
  assert.equal(existsSync(path.join(copy, 'node_modules', 'typescript')), false);
  assert.equal(existsSync(path.join(copy, 'node_modules', '@temporalio', 'worker')), true);
});
