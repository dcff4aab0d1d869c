// Where canopy keeps its state and how it reaches Temporal, from the environment.
import os from 'node:os';
import path from 'node:path';

export interface CanopyConfig {
  home: string;
  databaseUrl: string | undefined;
  temporalAddress: string;
  /** True when TEMPORAL_ADDRESS was given: use that server, never start an embedded one. */
  externalTemporal: boolean;
  namespace: string;
  taskQueue: string;
  uiPort: number;
  /** Where the Temporal UI is served: the embedded server's, or CANOPY_TEMPORAL_UI_URL; null when unknown. */
  temporalUiUrl: string | null;
  mcpPort: number;
  /** Port of the worker's run-token MCP endpoint for its own agents; 0 picks a free one. */
  workerMcpPort: number;
  /** How long an activity may stay silent before Temporal assumes its worker died. */
  heartbeatTimeoutSeconds: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): CanopyConfig {
  return {
    home: path.resolve(env.CANOPY_HOME || path.join(os.homedir(), '.canopy')),
    databaseUrl: env.CANOPY_DATABASE_URL || undefined,
    temporalAddress: env.TEMPORAL_ADDRESS || `127.0.0.1:${env.CANOPY_TEMPORAL_PORT || 7233}`,
    externalTemporal: Boolean(env.TEMPORAL_ADDRESS),
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.CANOPY_TASK_QUEUE || 'canopy',
    uiPort: Number(env.CANOPY_UI_PORT || 8233),
    temporalUiUrl:
      (env.CANOPY_TEMPORAL_UI_URL || (env.TEMPORAL_ADDRESS ? '' : `http://127.0.0.1:${env.CANOPY_UI_PORT || 8233}`)).replace(/\/+$/, '') ||
      null,
    mcpPort: Number(env.CANOPY_MCP_PORT || 7380),
    workerMcpPort: Number(env.CANOPY_WORKER_MCP_PORT || 0),
    heartbeatTimeoutSeconds: Number(env.CANOPY_HEARTBEAT_TIMEOUT_SECONDS || 30),
  };
}
