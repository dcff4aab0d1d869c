// How long `canopy` read commands take as whole processes: start, read the store, print, exit.
import { spawnSync } from 'node:child_process';
import { CANOPY_BIN } from '../src/project';
import { spread, type Spread } from './stats';

export interface StartupFigure {
  command: string;
  wallMs: Spread;
}

/** Runs each command `runs` times after one warm-up, the commands taking turns so drift hits all alike. */
export function measureCliStartup(commands: string[][], env: NodeJS.ProcessEnv, runs: number): StartupFigure[] {
  const samples = commands.map(() => [] as number[]);
  const runOnce = (args: string[]): number => {
    const started = process.hrtime.bigint();
    const result = spawnSync(process.execPath, [CANOPY_BIN, ...args], { env, encoding: 'utf8' });
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    if (result.status !== 0 && args[0] !== 'doctor') throw new Error(`canopy ${args.join(' ')} failed: ${result.stderr}`);
    return elapsed;
  };
  commands.forEach(runOnce);
  for (let round = 0; round < runs; round++) commands.forEach((args, i) => samples[i].push(runOnce(args)));
  return commands.map((args, i) => ({ command: `canopy ${args.join(' ')}`, wallMs: spread(samples[i]) }));
}
