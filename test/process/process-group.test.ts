// Killing a command's process group reaches the processes it started in groups and sessions of
// their own (setsid), which a signal to its group alone would leave running.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { killProcessGroup, runInProcessGroup } from '../../src/process/process-group';
import { identify } from '../../src/process/process-identity';
import { startSupervised } from '../../src/process/supervision';
import { waitUntil } from '../helpers/wait';

/** A command that starts a stray in a session of its own, which starts one more in a session of its own, then waits. */
const STRAYS = `setsid bash -c 'setsid sleep 300 & echo $! > inner; exec sleep 300' >/dev/null 2>&1 & echo $! > outer; exec sleep 300`;

const scratch = () => mkdtempSync(path.join(os.tmpdir(), 'canopy-process-group-'));

async function strayPids(dir: string): Promise<number[]> {
  const files = ['outer', 'inner'].map((name) => path.join(dir, name));
  await waitUntil('both strays to start', () =>
    Promise.resolve(files.every((file) => existsSync(file) && readFileSync(file, 'utf8').endsWith('\n'))),
  );
  const pids = files.map((file) => Number(readFileSync(file, 'utf8')));
  // A pid is written as soon as the shell forks; the stray leaves for a session of its own a moment later.
  await waitUntil('both strays to lead sessions of their own', () => Promise.resolve(pids.every((pid) => sessionOf(pid) === pid)));
  assert.ok(
    pids.every((pid) => identify(pid)),
    'the strays run',
  );
  return pids;
}

/** The session `pid` belongs to, from /proc/<pid>/stat (the fourth field after the command name). */
function sessionOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
  } catch {
    return null;
  }
}

function assertGone(pids: number[]): void {
  assert.deepEqual(
    pids.filter((pid) => identify(pid)),
    [],
    'no stray is left running',
  );
}

describe('killing a process group', () => {
  it('ends the strays its command started in sessions of their own when the command is cancelled', async () => {
    const dir = scratch();
    const cancel = new AbortController();
    const result = runInProcessGroup('bash', ['-c', STRAYS], { cwd: dir, env: process.env, timeoutMs: 60_000, signal: cancel.signal });
    const strays = await strayPids(dir);
    cancel.abort();
    assert.equal((await result).cancelled, true);
    assertGone(strays);
  });

  it('ends them for a supervised command cancelled the same way', async () => {
    const dir = scratch();
    const cancel = new AbortController();
    const result = startSupervised('bash', ['-c', STRAYS], {
      runDir: dir,
      cwd: dir,
      env: process.env,
      timeoutMs: 60_000,
      signal: cancel.signal,
    });
    const strays = await strayPids(dir);
    cancel.abort();
    assert.equal((await result).cancelled, true);
    assertGone(strays);
  });

  it('gives the result of a command that ended, though a stray that outlived it keeps its output open', { timeout: 60_000 }, async () => {
    const dir = scratch();
    // The command ends only once the stray has left for a session of its own: before that, it is still
    // in the group, which the command's end rightly kills.
    const stray = `setsid bash -c 'touch left; exec sleep 300' & echo $! > outer; until [ -e left ]; do sleep 0.01; done; echo done`;
    const result = await runInProcessGroup('bash', ['-c', stray], {
      cwd: dir,
      env: process.env,
      timeoutMs: 60_000,
    });
    const strayPid = Number(readFileSync(path.join(dir, 'outer'), 'utf8'));
    try {
      assert.deepEqual([result.exitCode, result.stdout, result.timedOut], [0, 'done\n', false]);
      assert.ok(identify(strayPid), 'the stray, out of reach once its parent ended, still runs');
    } finally {
      process.kill(strayPid, 'SIGKILL');
    }
  });

  it('ends them for a group a dead worker left behind, with no process of its own to wait on', async () => {
    const dir = scratch();
    const leader = spawn('bash', ['-c', STRAYS], { cwd: dir, detached: true, stdio: 'ignore' });
    const strays = await strayPids(dir);
    await killProcessGroup(leader.pid!);
    assertGone([leader.pid!, ...strays]);
  });
});
