// Puts the pinned Temporal CLI into a tools directory for `npm run setup`, building it with Go.
import { mkdirSync } from 'node:fs';
import { PINNED_TEMPORAL_CLI, TEMPORAL_CLI_MODULE } from './binary';
import { findGo, goInstall } from './go-install';

export interface InstallOptions {
  /** Where `temporal` lands (the project's `.tools/bin`). */
  toolsBin: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  arch: string;
  /** One line of progress or of why a way was given up. */
  log: (line: string) => void;
}

/** True when `temporal` is now in `toolsBin`. */
export function installTemporalCli(options: InstallOptions): Promise<boolean> {
  const go = findGo(options.env);
  return Promise.resolve(go !== null && buildWithGo(go, options));
}

function buildWithGo(go: string, { toolsBin, env, log }: InstallOptions): boolean {
  mkdirSync(toolsBin, { recursive: true });
  const target = `${TEMPORAL_CLI_MODULE}@${PINNED_TEMPORAL_CLI}`;
  log(`building ${target} into ${toolsBin} (minutes the first time, seconds after)…`);
  const started = Date.now();
  const built = goInstall(go, [target], toolsBin, env);
  log(`go install ${built ? 'finished' : 'failed'} after ${((Date.now() - started) / 1000).toFixed(1)}s`);
  return built;
}
