// The environment an agent CLI runs in, the same for a node run and a probe.
import type { Platform } from './index';

/**
 * The worker's environment without canopy's own settings (an agent must not reach the store or act as
 * the operator), then the platform's env from config.json, the adapter's, and the run's callback.
 */
export function agentEnvironment(platform: Platform, adapterEnv: Record<string, string>, run: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(CANOPY_|TEMPORAL_)/.test(name)));
  return { ...inherited, ...platform.settings.env, ...adapterEnv, ...run };
}
