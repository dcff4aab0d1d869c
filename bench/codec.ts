// What the payload codec costs a node step: a `canopy worker` with payload keys on its own task queue
// beside the plain one, and chains run on each in turn, so both see the same machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openContext, type ClientContext } from '../src/client/context';
import { loadConfig } from '../src/config';
import { CANOPY_BIN } from '../src/project';
import { chainLoop, stepGaps } from './engine';
import { spread } from './stats';

export interface CodecRound {
  plainMs: number;
  encryptedMs: number;
}

export interface EncryptedWorker {
  ctx: ClientContext;
  close(): Promise<void>;
}

/** A worker and a client that encrypt every payload, on their own task queue. */
export async function startEncryptedWorker(env: NodeJS.ProcessEnv): Promise<EncryptedWorker> {
  const sealedEnv = {
    ...env,
    CANOPY_TASK_QUEUE: 'canopy-bench-codec',
    CANOPY_PAYLOAD_KEYS: `bench:${randomBytes(32).toString('base64')}`,
  };
  const worker: ChildProcess = spawn(process.execPath, [CANOPY_BIN, 'worker'], { env: sealedEnv, stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise<void>((resolve) =>
    worker.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('Worker polling') && resolve()),
  );
  const ctx = await openContext(loadConfig(sealedEnv));
  return {
    ctx,
    async close() {
      worker.kill('SIGTERM');
      await ctx.close();
    },
  };
}

/** Rounds of a plain chain then an encrypted one of `length` checks; each figure is a round's median step. */
export async function codecRounds(
  plain: ClientContext,
  encrypted: ClientContext,
  length: number,
  rounds: number,
  workdirs: string[],
): Promise<CodecRound[]> {
  const results: CodecRound[] = [];
  for (let round = 0; round < rounds; round++) {
    const plainMs = spread(await stepGaps(plain, await chainLoop(plain, length, workdirs))).median;
    const encryptedMs = spread(await stepGaps(encrypted, await chainLoop(encrypted, length, workdirs))).median;
    results.push({ plainMs, encryptedMs });
  }
  return results;
}
