// The supervisor: output to files, the exit status on record, and what a later attempt can tell
// from what an earlier one left behind.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { identify } from '../../src/process/process-identity';
import { adoptSupervised, findEarlierProcess, startSupervised } from '../../src/process/supervision';
import { KEPT_OUTPUT_BYTES } from '../../src/process/supervision/records';
import { launcherPids } from '../helpers/processes';
import { onTmpfs, tmpfsUnavailable } from '../helpers/tmpfs';
import { waitUntil } from '../helpers/wait';

const runDir = () => mkdtempSync(path.join(os.tmpdir(), 'canopy-supervision-'));
const start = (dir: string, script: string, timeoutMs = 30_000) =>
  startSupervised('bash', ['-c', script], { runDir: dir, cwd: dir, env: process.env, timeoutMs });

describe('supervised processes', () => {
  it('sends output to the run directory and records the exit status there', async () => {
    const dir = runDir();
    const result = await start(dir, 'echo out; echo err >&2; exit 7');
    assert.deepEqual([result.exitCode, result.signal, result.stdout, result.stderr], [7, null, 'out\n', 'err\n']);
    assert.equal(readFileSync(path.join(dir, 'exit'), 'utf8').trim(), '7');
    assert.equal(findEarlierProcess(dir).state, 'exited');
  });

  it('records a command killed by a signal as that signal', async () => {
    const result = await start(runDir(), 'kill -TERM $$');
    assert.deepEqual([result.exitCode, result.signal], [null, 'SIGTERM']);
  });

  it('refuses a command that is not on the PATH before starting anything', async () => {
    const result = await startSupervised('no-such-agent-cli', [], {
      runDir: runDir(),
      cwd: os.tmpdir(),
      env: process.env,
      timeoutMs: 1_000,
    });
    assert.equal(result.pgid, null);
    assert.match(result.spawnError ?? '', /'no-such-agent-cli' is not on the PATH/);
  });

  it('fails with the reason, instead of throwing out of the worker, when the run directory is gone before the process is on record', async () => {
    const dir = runDir();
    rmSync(dir, { recursive: true });
    const started = startSupervised('bash', ['-c', 'sleep 30'], { runDir: dir, cwd: os.tmpdir(), env: process.env, timeoutMs: 30_000 });
    await assert.rejects(started, /ENOENT: no such file or directory, open '.*process\.json/);
  });

  it('kills the whole group when the time limit runs out', async () => {
    const dir = runDir();
    const result = await start(dir, 'sleep 300 & echo $! > child; wait', 500);
    assert.equal(result.timedOut, true);
    assert.equal(identify(Number(readFileSync(path.join(dir, 'child'), 'utf8'))), null, 'the background child was killed too');
  });

  it('adopts a running process and keeps its original deadline', async () => {
    const dir = runDir();
    const first = start(dir, 'echo begun; sleep 1; echo ended');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const earlier = findEarlierProcess(dir);
    assert.equal(earlier.state, 'running');
    if (earlier.state !== 'running') return;
    // A limit of 0 would kill it at once: the adopter keeps the deadline on record instead.
    const [original, adopted] = await Promise.all([first, adoptSupervised(earlier.record, { runDir: dir, timeoutMs: 0 })]);
    assert.deepEqual([adopted.exitCode, adopted.stdout, adopted.timedOut], [0, 'begun\nended\n', false]);
    assert.equal(adopted.pgid, original.pgid);
  });

  it('tells a process gone without an exit record, or a stranger under a reused pid, from one that runs', () => {
    const dir = runDir();
    assert.equal(findEarlierProcess(dir).state, 'none');
    const self = identify(process.pid)!;
    const record = { ...self, startTicks: `${self.startTicks}0`, deadline: Date.now() + 60_000 };
    writeFileSync(path.join(dir, 'process.json'), JSON.stringify(record));
    const earlier = findEarlierProcess(dir);
    assert.equal(earlier.state, 'gone');
    assert.match(earlier.state === 'gone' ? earlier.reason : '', /ended without recording an exit status/);
    // A supervisor killed between opening the exit file and writing the status leaves it empty or without its newline.
    for (const partial of ['', '0']) {
      writeFileSync(path.join(dir, 'exit'), partial);
      assert.equal(findEarlierProcess(dir).state, 'gone', `an exit file holding '${partial}'`);
    }
    writeFileSync(path.join(dir, 'exit'), '0\n');
    assert.equal(findEarlierProcess(dir).state, 'exited');
  });

  it('adopts a process whose worker died before recording it, by what its supervisor wrote as it started', async () => {
    const dir = runDir();
    const release = path.join(dir, 'release');
    const first = start(dir, `echo begun; while [ ! -e ${release} ]; do sleep 0.1; done; echo ended`);
    await waitUntil('the process to be on record', () => Promise.resolve(existsSync(path.join(dir, 'process.json'))));
    // What a worker killed between the start and its record leaves: the supervisor's own file only.
    rmSync(path.join(dir, 'process.json'));
    const earlier = findEarlierProcess(dir);
    assert.equal(earlier.state, 'running');
    if (earlier.state !== 'running') return;
    const adopted = adoptSupervised(earlier.record, { runDir: dir, timeoutMs: 0 });
    writeFileSync(release, '');
    const [original, adoption] = await Promise.all([first, adopted]);
    assert.deepEqual([adoption.exitCode, adoption.stdout, adoption.timedOut], [0, 'begun\nended\n', false]);
    assert.equal(adoption.pgid, original.pgid);
    assert.equal(findEarlierProcess(dir).state, 'exited');
  });

  it('takes a supervisor file naming a process that is not that supervisor, or none, for one gone', () => {
    const dir = runDir();
    for (const pid of [process.pid, 2 ** 22 + 1]) {
      writeFileSync(path.join(dir, 'supervisor'), `${pid} ${Date.now() + 60_000}\n`);
      assert.equal(findEarlierProcess(dir).state, 'gone', `pid ${pid}`);
    }
    // A supervisor killed as it wrote the file leaves it empty or without its newline: nothing started.
    for (const partial of ['', `${process.pid} 1`]) {
      writeFileSync(path.join(dir, 'supervisor'), partial);
      assert.equal(findEarlierProcess(dir).state, 'none', `a supervisor file holding '${partial}'`);
    }
  });

  it('follows a process on through its run directory when the launcher dies under it', async () => {
    const dir = runDir();
    const release = path.join(dir, 'release');
    const result = start(dir, `echo begun; while [ ! -e ${release} ]; do sleep 0.1; done; echo ended`);
    await waitUntil('the process to start', () => Promise.resolve(existsSync(path.join(dir, 'process.json'))));
    for (const pid of launcherPids()) process.kill(pid, 'SIGKILL');
    await waitUntil('the launcher to end', () => Promise.resolve(launcherPids().length === 0));
    writeFileSync(release, '');
    const { exitCode, stdout, lost, spawnError } = await result;
    assert.deepEqual({ exitCode, stdout, lost, spawnError }, { exitCode: 0, stdout: 'begun\nended\n', lost: null, spawnError: null });
  });

  it('reports a process whose supervisor died before recording its exit status as lost, not as one that did not start', async () => {
    const dir = runDir();
    const result = start(dir, 'echo begun; sleep 60');
    await waitUntil('the process to print', () =>
      Promise.resolve(existsSync(path.join(dir, 'stdout')) && readFileSync(path.join(dir, 'stdout'), 'utf8')),
    );
    const { pid } = JSON.parse(readFileSync(path.join(dir, 'process.json'), 'utf8')) as { pid: number };
    process.kill(pid, 'SIGKILL');
    const ended = await result;
    assert.deepEqual([ended.exitCode, ended.spawnError, ended.stdout], [null, null, 'begun\n']);
    assert.match(ended.lost ?? '', new RegExp(`^its supervisor \\(pid ${pid}\\) was killed by SIGKILL before it recorded the exit status`));
  });

  it('keeps the head and the tail of an output over the bound, with a line saying how much was cut', async () => {
    const size = KEPT_OUTPUT_BYTES * 3;
    const result = await start(runDir(), `head -c ${size - 4} /dev/zero | tr '\\0' x; echo END; exit 3`);
    const half = KEPT_OUTPUT_BYTES / 2;
    assert.equal(
      result.stdout,
      `${'x'.repeat(half)}\n[canopy: ${size - KEPT_OUTPUT_BYTES} bytes of ${size} cut here]\n${'x'.repeat(half - 4)}END\n`,
    );
    assert.deepEqual([result.exitCode, result.noSpace], [3, null], 'a failure with room on the disk is not a full disk');
  });

  it(
    'says where it found no space left when the output filled the disk, though nothing could be written there',
    { skip: tmpfsUnavailable() },
    () =>
      onTmpfs('2m', async (disk) => {
        const dir = path.join(disk, 'nrun_1');
        mkdirSync(dir);
        // Once the worker has the process on record, which it could not write on the full disk.
        const result = await start(dir, 'while [ ! -e process.json ]; do sleep 0.01; done; yes | head -c 5000000');
        assert.ok(result.lost, 'the exit status had no room either');
        assert.match(
          result.noSpace ?? '',
          new RegExp(
            `^the file system holding ${dir} is full \\(\\d+ bytes free\\) after the command wrote \\d+ bytes to stdout and 0 to stderr there, and its exit status could not be recorded$`,
          ),
        );
        assert.match(result.stdout, /^(y\n)+\n\[canopy: \d+ bytes of \d+ cut here\]\n/);
      }),
  );
});
