// How an agent CLI is started for one run, the same for a node run and a probe: the adapter's
// invocation, the files it asks for written into the run directory, and the environment it runs in.
import type { Platform } from './index';
import { makePrivateHome } from './private-home';
import type { AgentRun } from './types';
import { writeRunFile } from '../process/run-directory';

export interface AgentLaunch {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** The file the CLI reads as its standard input, if it reads one. */
  stdinFile?: string;
}

/** `env` is added over the adapter's (`extra`) and over everything (`run`: the run's callback). */
export function prepareLaunch(
  platform: Platform,
  run: AgentRun,
  env: { extra?: Record<string, string>; run: Record<string, string> },
): AgentLaunch {
  const invocation = platform.adapter.invocation(run, platform.settings);
  for (const [name, content] of Object.entries(invocation.files)) writeRunFile(run.runDir, name, content);
  const agentEnv = agentEnvironment(platform, { ...invocation.env, ...env.extra }, env.run);
  if (invocation.home) Object.assign(agentEnv, makePrivateHome(invocation.home, run.privateHomeDir, agentEnv));
  return { command: invocation.command, args: invocation.args, env: agentEnv, stdinFile: invocation.stdinFile };
}

/**
 * The worker's environment without canopy's own settings (an agent must not reach the store or act as
 * the operator), then the platform's env from config.json, the adapter's, and the run's callback.
 */
function agentEnvironment(platform: Platform, adapterEnv: Record<string, string>, run: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(CANOPY_|TEMPORAL_)/.test(name)));
  return { ...inherited, ...platform.settings.env, ...adapterEnv, ...run };
}
