// `canopy doctor --probe`: each platform run once for real, against the stand-in model API, and reported
// reachable, not installed, misconfigured (with the CLI's own error line) or timed out. Plain doctor treats
// a platform that is not installed as information.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { it } from 'node:test';
import { missingClis, scratchHomeDir, realCliPlatforms } from '../helpers/agent-clis';
import { CANOPY_BIN, childEnv, testConfig } from '../helpers/engine';
import { startModelApi } from '../helpers/model-api';
import { probePlatforms } from '../../src/client/probe-service';

const skip = !process.env.CANOPY_TEST_TEMPORAL_ADDRESS ? 'needs the dev server that `npm test` starts' : missingClis();

it('doctor --probe tells a reachable CLI from one not installed, one misconfigured and one that hangs', { skip }, async () => {
  const api = await startModelApi();
  const dir = scratchHomeDir();
  const config = testConfig(path.join(dir, 'home'));
  mkdirSync(config.home, { mode: 0o700 });
  const real = realCliPlatforms(api.url, dir);
  const hangs = await startModelApi();
  hangs.script({ action: { kind: 'hang' }, final: '' });
  const platforms = {
    claude: real.claude,
    // No key: the CLI's own refusal is the detail.
    gemini: { ...real.gemini, env: { HOME: (real.gemini.env as Record<string, string>).HOME } },
    opencode: { ...real.opencode, command: path.join(dir, 'no-such-opencode') },
    codex: realCliPlatforms(hangs.url, path.join(dir, 'hanging')).codex,
  };
  writeFileSync(path.join(config.home, 'config.json'), JSON.stringify({ platforms }));
  try {
    // Long enough for gemini, a large Node program, to start and refuse on a machine busy with other test files
    // (it took more than 8 s there); the hanging codex waits it out whatever it is.
    const { stdout } = await promisify(execFile)(process.execPath, [CANOPY_BIN, 'doctor', '--probe', '--probe-timeout', '20', '--json'], {
      env: childEnv(config),
    });
    const probes = Object.fromEntries(
      (JSON.parse(stdout).probes as { name: string; state: string; detail: string }[]).map((p) => [p.name, p]),
    );
    assert.equal(probes.claude.state, 'reachable', probes.claude.detail);
    assert.equal(probes.opencode.state, 'not installed');
    assert.equal(probes.gemini.state, 'misconfigured');
    assert.match(probes.gemini.detail, /GEMINI_API_KEY|auth/i);
    assert.equal(probes.codex.state, 'timed out', probes.codex.detail);

    const plain = await promisify(execFile)(process.execPath, [CANOPY_BIN, 'doctor'], { env: childEnv(config) });
    assert.match(plain.stdout, /-- platform +opencode: not installed/);
  } finally {
    await api.close();
    await hangs.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

it('doctor --probe names a gemini settings file canopy cannot read, and runs nothing', { skip }, async () => {
  const dir = scratchHomeDir();
  const config = testConfig(path.join(dir, 'home'));
  mkdirSync(config.home, { mode: 0o700 });
  const gemini = realCliPlatforms('http://127.0.0.1:9', dir).gemini;
  const settings = path.join((gemini.env as Record<string, string>).HOME, '.gemini', 'settings.json');
  writeFileSync(settings, '{ "security": ');
  writeFileSync(path.join(config.home, 'config.json'), JSON.stringify({ platforms: { gemini } }));
  try {
    const [probe] = await probePlatforms(config.home, ['gemini']);
    assert.equal(probe.state, 'misconfigured');
    assert.match(probe.detail, new RegExp(`The agent's settings file ${settings} cannot be read .*; fix it`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
