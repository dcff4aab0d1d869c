// How long `canopy` commands take as whole processes (start, read the store, print, exit), each
// paired with the yardstick `node -e 0` run just before it, so the ratio holds however busy the machine is.
import { spawnSync } from 'node:child_process';
import { CANOPY_BIN } from '../src/project';
import { spread, type Spread } from './stats';

export interface StartupFigure {
  command: string;
  wallMs: Spread;
  /** Each run over the yardstick run just before it. */
  ratio: Spread;
}

export interface StartupFigures {
  yardstickMs: Spread;
  figures: StartupFigure[];
}

/** Runs each command `runs` times after one warm-up, the commands taking turns so drift hits all alike. */
export function measureCliStartup(commands: string[][], env: NodeJS.ProcessEnv, runs: number): StartupFigures {
  const timed = (argv: string[], check: boolean): number => {
    const started = process.hrtime.bigint();
    const result = spawnSync(process.execPath, argv, { env, encoding: 'utf8' });
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    if (check && result.status !== 0 && argv[1] !== 'doctor') throw new Error(`${argv.join(' ')} failed: ${result.stderr}`);
    return elapsed;
  };
  const canopy = (args: string[]) => timed([CANOPY_BIN, ...args], true);
  const yardstick = () => timed(['-e', '0'], false);
  commands.forEach(canopy);
  const yardstickMs: number[] = [];
  const samples = commands.map(() => ({ ms: [] as number[], ratios: [] as number[] }));
  for (let round = 0; round < runs; round++) {
    commands.forEach((args, i) => {
      const floor = yardstick();
      const ms = canopy(args);
      yardstickMs.push(floor);
      samples[i].ms.push(ms);
      samples[i].ratios.push(ms / floor);
    });
  }
  return {
    yardstickMs: spread(yardstickMs),
    figures: commands.map((args, i) => ({
      command: `canopy ${args.join(' ')}`,
      wallMs: spread(samples[i].ms),
      ratio: spread(samples[i].ratios),
    })),
  };
}
