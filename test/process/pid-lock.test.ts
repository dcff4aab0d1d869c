// The pid lock: one holder at a time, told to whoever else asks, and taken over once its process is gone.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { identify } from '../../src/process/process-identity';
import { takePidLock } from '../../src/process/pid-lock';

const lockPath = () => path.join(mkdtempSync(path.join(os.tmpdir(), 'canopy-lock-')), 'up.lock');

/** A lock as a process that is gone (or a stranger under its reused pid) left it. */
function leaveLock(lock: string, entry: string): void {
  mkdirSync(lock);
  writeFileSync(path.join(lock, entry), '');
}

/** The entry of a process that ran and ended: its pid and start time, now naming nothing. */
function goneProcessEntry(): string {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(require("fs").readFileSync("/proc/self/stat", "utf8"))']);
  const stat = child.stdout.toString();
  return `${child.pid}-${stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]}`;
}

describe('pid lock', () => {
  it('is held by one process at a time: another attempt is told the holder, and a release frees it', () => {
    const lock = lockPath();
    const first = takePidLock(lock);
    assert.ok('taken' in first);
    assert.deepEqual(takePidLock(lock), { holder: identify(process.pid) });
    first.taken.release();
    assert.equal(existsSync(lock), false, 'a release leaves nothing behind');
    const again = takePidLock(lock);
    assert.ok('taken' in again, 'a released lock can be taken again');
    again.taken.release();
  });

  it('is taken over when the process it names is gone, when its pid now names another process, or when it names none', () => {
    const self = identify(process.pid)!;
    for (const entry of [goneProcessEntry(), `${self.pid}-${self.startTicks}0`, 'not-a-process']) {
      const lock = lockPath();
      leaveLock(lock, entry);
      const attempt = takePidLock(lock);
      assert.ok('taken' in attempt, `a lock left as ${entry} is taken over`);
      assert.deepEqual(takePidLock(lock), { holder: self });
      attempt.taken.release();
    }
  });

  it('goes to exactly one of many processes taking a stale lock at once, and the others name it', async () => {
    const lock = lockPath();
    leaveLock(lock, goneProcessEntry());
    // Each takes the lock, says what it got, and keeps it until its stdin closes.
    const script = `
      const attempt = require(${JSON.stringify(require.resolve('../../src/process/pid-lock'))}).takePidLock(${JSON.stringify(lock)});
      process.stdout.write(JSON.stringify('taken' in attempt ? { taken: process.pid } : attempt) + '\\n');
      process.stdin.resume().once('end', () => ('taken' in attempt ? attempt.taken.release() : undefined));`;
    const contenders = Array.from({ length: 8 }, () => spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] }));
    const said = await Promise.all(
      contenders.map(
        (child) =>
          new Promise<{ taken?: number; holder?: { pid: number } }>((resolve) =>
            child.stdout.once('data', (chunk: Buffer) =>
              resolve(JSON.parse(chunk.toString()) as { taken?: number; holder?: { pid: number } }),
            ),
          ),
      ),
    );
    const takers = said.filter((answer) => answer.taken !== undefined);
    assert.equal(takers.length, 1, JSON.stringify(said));
    for (const answer of said.filter((other) => other.taken === undefined)) assert.equal(answer.holder?.pid, takers[0].taken);
    await Promise.all(
      contenders.map((child) => {
        child.stdin.end();
        return new Promise((resolve) => child.once('exit', resolve));
      }),
    );
    assert.equal(existsSync(lock), false);
  });
});
