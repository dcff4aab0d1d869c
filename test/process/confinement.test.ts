// Confined processes under their supervisor: what they see (no home but their run directory, a /tmp
// and a process table of their own, the workdir and their own directories as the user sees them),
// and that supervision works on them as on any: adoption, time limits that leave nothing behind.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { confinementSupport, type Confinement } from '../../src/process/confinement';
import { identify } from '../../src/process/process-identity';
import { adoptSupervised, findEarlierProcess, startSupervised } from '../../src/process/supervision';
import { livePidsWhere } from '../helpers/running-processes';
import { waitUntil } from '../helpers/wait';

const support = confinementSupport();
const skip = support.available ? false : `bwrap cannot confine here: ${support.reason}`;

/** A canopy home with a secret, a run directory in it, and a workdir beside it, all under /tmp as tests make them. */
function scene(): { home: string; runDir: string; workdir: string; confinement: Confinement } {
  const base = mkdtempSync(path.join(os.tmpdir(), 'canopy-confinement-'));
  const home = path.join(base, 'home');
  const runDir = path.join(home, 'runs', 'nrun_1');
  const workdir = path.join(base, 'work');
  mkdirSync(runDir, { recursive: true });
  mkdirSync(workdir);
  writeFileSync(path.join(home, 'mcp-token'), 'secret');
  writeFileSync(path.join(runDir, 'input.txt'), 'mine\n');
  return {
    home,
    runDir,
    workdir,
    confinement: { bwrap: support.available ? support.bwrap : '', home, runDir, writable: [workdir], readOnly: [] },
  };
}

const inWorkdir = (workdir: string) => livePidsWhere((pid) => readlinkSync(`/proc/${pid}/cwd`) === workdir);

describe('confined supervised processes', { skip }, () => {
  it('see their run directory and workdir but not the home, a /tmp and a process table of their own', async () => {
    const { home, runDir, workdir, confinement } = scene();
    const outside = path.join(os.tmpdir(), `canopy-confinement-outside-${path.basename(path.dirname(home))}`);
    writeFileSync(outside, 'outside');
    const ownHome = mkdtempSync(path.join(os.tmpdir(), 'canopy-confinement-own-home-'));
    writeFileSync(path.join(ownHome, 'settings'), 'own\n');
    const script = [
      // Run by root, it might have unmounted what hides them.
      `umount -l '${home}' 2>/dev/null; umount -l /tmp 2>/dev/null`,
      `cat '${home}/mcp-token' 2>/dev/null || echo 'no token'`,
      `cat '${runDir}/input.txt'`,
      `cat '${outside}' 2>/dev/null || echo 'no outside /tmp file'`,
      'cat "$HOME/settings"',
      'echo written > out.txt',
      `echo tmp > '${outside}-private' && cat '${outside}-private'`,
      // bwrap's init and this shell, and nothing else of the machine.
      'ls /proc | grep -c "^[0-9]"',
    ].join('; ');
    const result = await startSupervised('bash', ['-c', script], {
      runDir,
      cwd: workdir,
      env: { ...process.env, HOME: ownHome },
      timeoutMs: 30_000,
      confinement,
    });
    assert.equal(result.exitCode, 0, result.stderr);
    const lines = result.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(0, 5), ['no token', 'mine', 'no outside /tmp file', 'own', 'tmp']);
    assert.ok(Number(lines[5]) <= 4, `only its own processes are visible: ${lines[5]}`);
    assert.ok(existsSync(path.join(workdir, 'out.txt')));
    assert.ok(!existsSync(`${outside}-private`), 'what it wrote to /tmp stayed in its own');
  });

  it("run canopy's own installation, read-only, though it is under the /tmp they do not see", async () => {
    const { runDir, workdir, confinement } = scene();
    const installation = mkdtempSync(path.join(os.tmpdir(), 'canopy-confinement-installation-'));
    writeFileSync(path.join(installation, 'canopy'), 'echo canopy runs\n');
    const script = [
      `bash '${installation}/canopy'`,
      `touch '${installation}/written' 2>/dev/null && echo 'installation written' || echo 'installation read-only'`,
    ].join('; ');
    const result = await startSupervised('bash', ['-c', script], {
      runDir,
      cwd: workdir,
      env: process.env,
      timeoutMs: 30_000,
      confinement: { ...confinement, readOnly: [installation] },
    });
    assert.equal(result.exitCode, 0, result.stderr);
    assert.deepEqual(result.stdout.trim().split('\n'), ['canopy runs', 'installation read-only']);
  });

  it('is adopted by a later attempt while it runs, with its output whole', async () => {
    const { runDir, workdir, confinement } = scene();
    const first = startSupervised('bash', ['-c', 'echo begun; sleep 1; echo ended'], {
      runDir,
      cwd: workdir,
      env: process.env,
      timeoutMs: 30_000,
      confinement,
    });
    const earlier = await waitUntil('the process to be on record', () => {
      const found = findEarlierProcess(runDir);
      return Promise.resolve(found.state === 'running' ? found : undefined);
    });
    const [original, adopted] = await Promise.all([first, adoptSupervised(earlier.record, { runDir, timeoutMs: 0 })]);
    assert.deepEqual([adopted.exitCode, adopted.stdout, adopted.timedOut], [0, 'begun\nended\n', false]);
    assert.equal(adopted.pgid, original.pgid);
  });

  it('is killed with everything it started, in its namespace or a session of its own, when its time runs out', async () => {
    const { runDir, workdir, confinement } = scene();
    const script = 'sleep 300 & setsid sleep 301 & echo started; wait';
    const result = await startSupervised('bash', ['-c', script], { runDir, cwd: workdir, env: process.env, timeoutMs: 1_000, confinement });
    assert.equal(result.timedOut, true);
    assert.equal(result.stdout, 'started\n');
    assert.deepEqual(inWorkdir(workdir), [], 'nothing it started is left running');
  });

  it('ends with its supervisor when the supervisor alone is killed, instead of running on unwatched', async () => {
    const { runDir, workdir, confinement } = scene();
    const started = startSupervised('bash', ['-c', 'echo started; sleep 300'], {
      runDir,
      cwd: workdir,
      env: process.env,
      timeoutMs: 60_000,
      confinement,
    });
    const earlier = await waitUntil('the process to be on record', () => {
      const found = findEarlierProcess(runDir);
      return Promise.resolve(found.state === 'running' ? found : undefined);
    });
    await waitUntil('the command to start', () => Promise.resolve(inWorkdir(workdir).length >= 3));
    process.kill(earlier.record.pid, 'SIGKILL');
    const result = await started;
    assert.equal(identify(earlier.record.pid), null);
    assert.match(result.lost ?? '', /killed by SIGKILL before it recorded the exit status/);
    await waitUntil('the confined command to end with it', () => Promise.resolve(inWorkdir(workdir).length === 0));
  });
});
