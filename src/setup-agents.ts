// `npm run setup:agents`: installs the pinned agent CLIs into .tools/agents (git-ignored), unless every one
// is already there at its version and runs. codex and opencode pull their native binary as an optional dependency.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AGENT_TOOLS_BIN, AGENT_TOOLS_PREFIX, PINNED_AGENT_PACKAGES } from './agents/pinned';

/**
 * The install scripts of the agents' packages npm may run (its allowScripts): the two that put claude's
 * and opencode's native binaries in place. gemini's optional keychain and terminal modules would be
 * built with a C++ compiler; gemini runs without them.
 */
const INSTALL_SCRIPTS = { '@anthropic-ai/claude-code': true, 'opencode-ai': true, '@github/keytar': false, 'node-pty': false };

/** The agents' own package.json, as npm leaves it, with their allowed install scripts. */
function allowInstallScripts(): void {
  const manifest = path.join(AGENT_TOOLS_PREFIX, 'package.json');
  const current = existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>) : {};
  writeFileSync(manifest, `${JSON.stringify({ ...current, allowScripts: INSTALL_SCRIPTS }, null, 2)}\n`);
}

function installedVersion(name: string): string | null {
  const manifest = path.join(AGENT_TOOLS_PREFIX, 'node_modules', name, 'package.json');
  return existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version : null;
}

/** The CLI's own `--version`, or why it does not run (a missing platform binary shows here). */
function runs(binary: string): string | null {
  const result = spawnSync(path.join(AGENT_TOOLS_BIN, binary), ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return result.status === 0 ? null : (result.stderr || result.error?.message || `exit ${result.status}`).trim().split('\n')[0];
}

function problems(): string[] {
  return Object.entries(PINNED_AGENT_PACKAGES).flatMap(([binary, pin]) => {
    const version = installedVersion(pin.package);
    if (version !== pin.version) return [`${pin.package}: ${version ?? 'not installed'}, want ${pin.version}`];
    const failure = runs(binary);
    return failure ? [`${binary} --version fails: ${failure}`] : [];
  });
}

function main(): void {
  const before = problems();
  if (before.length === 0) {
    console.log(`canopy setup:agents: ${Object.keys(PINNED_AGENT_PACKAGES).join(', ')} ready in ${AGENT_TOOLS_BIN}`);
    return;
  }
  console.log(`canopy setup:agents: installing into ${AGENT_TOOLS_PREFIX} (${before.join('; ')})…`);
  mkdirSync(AGENT_TOOLS_PREFIX, { recursive: true });
  allowInstallScripts();
  const specs = Object.values(PINNED_AGENT_PACKAGES).map((pin) => `${pin.package}@${pin.version}`);
  const npm = spawnSync('npm', ['install', '--prefix', AGENT_TOOLS_PREFIX, '--no-audit', '--no-fund', ...specs], { stdio: 'inherit' });
  const after = problems();
  if (npm.status !== 0 || after.length) {
    console.error(`canopy setup:agents: failed: ${after.join('; ') || `npm exited ${npm.status}`}`);
    process.exitCode = 1;
    return;
  }
  console.log('canopy setup:agents: done');
}

main();
