// The launcher process: processes started through it behave like child processes, and a launcher
// that dies fails what it was running and is replaced on the next launch.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { launch, launchCaptured, LaunchTimeout, type LaunchedProcess } from '../../src/process/launcher';
import { launcherPids } from '../helpers/processes';

function closed(child: LaunchedProcess): Promise<{ exitCode: number | null; signal: string | null }> {
  return new Promise((resolve) => child.once('close', (exitCode: number | null, signal: string | null) => resolve({ exitCode, signal })));
}

describe('launcher', () => {
  it('runs a command in the given directory and environment and reports its output and exit code', async () => {
    const result = await launchCaptured('bash', ['-c', 'pwd; echo "$GREETING"; echo oops >&2; exit 3'], {
      cwd: '/tmp',
      env: { ...process.env, GREETING: 'hello' },
      timeoutMs: 10_000,
    });
    assert.deepEqual(result, { exitCode: 3, stdout: '/tmp\nhello\n', stderr: 'oops\n' });
  });

  it('kills a captured command that runs past its time limit and says so', async () => {
    const started = Date.now();
    await assert.rejects(
      launchCaptured('bash', ['-c', 'echo $$; exec sleep 30'], { cwd: '/tmp', env: process.env, timeoutMs: 300 }),
      (error: Error) =>
        error instanceof LaunchTimeout && /bash -c .* did not end within 0.3 s in \/tmp, so it was stopped/.test(error.message),
    );
    assert.ok(Date.now() - started < 10_000, 'it did not wait for the command');
  });

  it('starts a detached process as the leader of its own group', async () => {
    const child = launch('bash', ['-c', 'ps -o pgid= -p $$'], { cwd: '/tmp', env: process.env, detached: true });
    let printed = '';
    child.on('stdout', (chunk: Buffer) => (printed += chunk.toString()));
    // Both are heard from the start: the launcher may report the spawn and the close in one message batch.
    const [, end] = await Promise.all([new Promise<void>((resolve) => child.once('spawn', resolve)), closed(child)]);
    assert.equal(end.exitCode, 0);
    assert.equal(Number(printed.trim()), child.pid);
  });

  it('gives a process whose output is not captured no pipes: what it prints goes nowhere', async () => {
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'canopy-launcher-'));
    try {
      const child = launch('bash', ['-c', 'echo printed; readlink /proc/$$/fd/1 /proc/$$/fd/2 > streams'], {
        cwd: scratch,
        env: process.env,
        captureOutput: false,
      });
      let printed = '';
      child.on('stdout', (chunk: Buffer) => (printed += chunk.toString()));
      assert.equal((await closed(child)).exitCode, 0);
      assert.equal(printed, '');
      assert.deepEqual(readFileSync(path.join(scratch, 'streams'), 'utf8').split('\n').filter(Boolean), ['/dev/null', '/dev/null']);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('reports a command that cannot start as an error, then closes', async () => {
    const child = launch('/nonexistent/agent-cli', [], { cwd: '/tmp', env: process.env });
    const error = new Promise<Error & { code?: string }>((resolve) => child.once('error', resolve));
    const ended = closed(child);
    assert.equal((await error).code, 'ENOENT');
    assert.notEqual((await ended).exitCode, 0);
  });

  it('reports a spawn that throws (a NUL byte, E2BIG) as an error, and keeps the launcher and its other processes alive', async () => {
    const sleeper = launch('sleep', ['1'], { cwd: '/tmp', env: process.env, detached: true });
    await new Promise<void>((resolve) => sleeper.once('spawn', resolve));
    const [launcher] = launcherPids();
    const refused = [
      launch('echo', ['a\u0000b'], { cwd: '/tmp', env: process.env }),
      launch('true', [], { cwd: '/tmp', env: { ...process.env, HUGE: 'x'.repeat(256 * 1024) } }),
    ].map((child) => Promise.all([new Promise<Error & { code?: string }>((resolve) => child.once('error', resolve)), closed(child)]));
    const [[nul], [big]] = await Promise.all(refused);
    assert.equal(nul.code, 'ERR_INVALID_ARG_VALUE');
    assert.equal(big.code, 'E2BIG');
    assert.deepEqual(await closed(sleeper), { exitCode: 0, signal: null }, 'the other process ran to its end');
    assert.deepEqual(launcherPids(), [launcher]);
  });

  it('fails what a dead launcher was running, and the next launch starts a new launcher', async () => {
    const sleeper = launch('sleep', ['30'], { cwd: '/tmp', env: process.env, detached: true });
    await new Promise<void>((resolve) => sleeper.once('spawn', resolve));
    const errors: Error[] = [];
    sleeper.on('error', (error: Error) => errors.push(error));
    const ended = closed(sleeper);
    const [first] = launcherPids();
    assert.ok(first, 'a launcher process runs');
    process.kill(first, 'SIGKILL');
    assert.deepEqual(await ended, { exitCode: null, signal: null });
    assert.match(errors[0]?.message ?? '', /launcher process ended/);
    process.kill(-sleeper.pid!, 'SIGKILL');

    const after = await launchCaptured('echo', ['still here'], { cwd: '/tmp', env: process.env, timeoutMs: 10_000 });
    assert.equal(after.stdout, 'still here\n');
    assert.notDeepEqual(launcherPids(), [first]);
  });
});
