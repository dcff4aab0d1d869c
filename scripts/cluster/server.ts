// The Temporal server of the cluster: the temporal-server binary on docker/temporal-server.yaml,
// every service on loopback ports picked free once, so a restart comes back on the same address.
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/project';
import { freePortBetween } from '../../src/temporal/free-port';
import { runScript, spawnLogged, type ClusterProcess } from './processes';

const NAMESPACE_SCRIPT = path.join(PROJECT_ROOT, 'docker', 'temporal-namespace.sh');
const DYNAMIC_CONFIG = path.join(PROJECT_ROOT, 'docker', 'dynamicconfig.yaml');
const SERVICES = ['FRONTEND', 'HISTORY', 'MATCHING', 'WORKER'];
/** Temporal records its services' membership ports in a PostgreSQL smallint, so none above 32767. */
const PORT_RANGE = [20_000, 32_767] as const;
/** The server reads <root>/<config>/<env>.yaml: docker/temporal-server.yaml. */
const CONFIG_ARGS = ['--root', PROJECT_ROOT, '--config', 'docker', '--env', 'temporal-server'];

export interface ServerSettings {
  binary: string;
  /** The Temporal CLI, with which docker/temporal-namespace.sh registers the namespace. */
  temporalCli: string;
  namespace: string;
  /** POSTGRES_* and the database names, for the config file. */
  databaseEnv: Record<string, string>;
  /** The gRPC and membership port of each service, as the config file reads them. */
  portEnv: Record<string, string>;
  logFile: string;
}

export async function pickServerPorts(): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const service of SERVICES) {
    env[`TEMPORAL_${service}_PORT`] = String(await freePortBetween(...PORT_RANGE));
    env[`TEMPORAL_${service}_MEMBERSHIP_PORT`] = String(await freePortBetween(...PORT_RANGE));
  }
  return env;
}

export function frontendAddress(settings: ServerSettings): string {
  return `127.0.0.1:${settings.portEnv.TEMPORAL_FRONTEND_PORT}`;
}

/** Starts the server and resolves once its frontend answers and the namespace exists. */
export async function startTemporalServer(settings: ServerSettings): Promise<ClusterProcess> {
  const env = {
    ...process.env,
    ...settings.databaseEnv,
    ...settings.portEnv,
    TEMPORAL_BIND_IP: '127.0.0.1',
    TEMPORAL_DYNAMIC_CONFIG: DYNAMIC_CONFIG,
  };
  // Loopback only, so no authorizer: the flag says it was meant.
  const server = spawnLogged(settings.binary, [...CONFIG_ARGS, '--allow-no-auth', 'start'], env, settings.logFile);
  const waiting = new AbortController();
  const ready = runScript(
    NAMESPACE_SCRIPT,
    {
      ...process.env,
      TEMPORAL_CLI: settings.temporalCli,
      TEMPORAL_ADDRESS: frontendAddress(settings),
      TEMPORAL_NAMESPACE: settings.namespace,
    },
    waiting.signal,
  );
  try {
    const outcome = await Promise.race([ready.then(() => 'ready' as const), server.exited.then(() => 'exited' as const)]);
    if (outcome === 'exited') throw new Error(`The Temporal server exited while starting; see ${settings.logFile}.`);
  } catch (error) {
    waiting.abort();
    await ready.catch(() => undefined);
    await server.kill();
    throw error;
  }
  return server;
}
