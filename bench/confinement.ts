// What confinement (bwrap) costs a node step: chains of checks run confined and with `confine: false`
// in alternating rounds, so both see the same machine, and the bare spawn of `bash -c true` with and
// without bwrap around it.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClientContext } from '../src/client/context';
import { confinedArgv, confinementSupport } from '../src/process/confinement';
import { chainLoop, plainSpawnMs, stepGaps } from './engine';
import { spread } from './stats';

export interface ConfinementRound {
  unconfinedMs: number;
  confinedMs: number;
  spawnMs: number;
  confinedSpawnMs: number;
}

/** The reason instead when bwrap cannot confine on this machine. */
export async function confinementRounds(
  ctx: ClientContext,
  length: number,
  rounds: number,
  workdirs: string[],
): Promise<ConfinementRound[] | string> {
  const support = confinementSupport();
  if (!support.available) return support.reason;
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-confined-'));
  const bare = ['bash', '-c', 'true'];
  const confined = confinedArgv(
    { bwrap: support.bwrap, home: ctx.config.home, runDir: scratch, writable: [scratch], readOnly: [] },
    { executable: '/bin/bash', args: ['-c', 'true'], cwd: scratch, env: process.env },
  );
  const results: ConfinementRound[] = [];
  for (let round = 0; round < rounds; round++) {
    const unconfinedMs = spread(await stepGaps(ctx, await chainLoop(ctx, length, workdirs, { confine: false }))).median;
    const confinedMs = spread(await stepGaps(ctx, await chainLoop(ctx, length, workdirs))).median;
    const spawns: number[] = [];
    const confinedSpawns: number[] = [];
    for (let i = 0; i < length; i++) {
      spawns.push(await plainSpawnMs(bare));
      confinedSpawns.push(await plainSpawnMs(confined));
    }
    results.push({ unconfinedMs, confinedMs, spawnMs: spread(spawns).median, confinedSpawnMs: spread(confinedSpawns).median });
  }
  workdirs.push(scratch);
  return results;
}
