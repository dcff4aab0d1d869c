// How an agent CLI reaches canopy's self-report tools for one run: `canopy node mcp` over stdio, a child of
// the CLI that keeps each report in the run directory before it sends it to the worker's run-token endpoint,
// so a report made while the worker is down or restarting is not lost (an HTTP server configured in the CLI
// would fail the call then). Configs never hold the token: they name its variable, which each CLI expands.
import { CANOPY_BIN } from '../project';
import type { AgentRun } from './types';

/** canopy's stdio server for a run: its command line and the environment it needs besides the token. */
export interface StdioServer {
  command: string;
  args: string[];
  /** Literal values; the token is added by reference, the way each CLI spells one. */
  env: Record<string, string>;
}

export function canopyStdioServer(run: Pick<AgentRun, 'mcpUrl' | 'runDir'>): StdioServer {
  return {
    command: process.execPath,
    args: [CANOPY_BIN, 'node', 'mcp'],
    env: { CANOPY_MCP_URL: run.mcpUrl, CANOPY_RUN_DIR: run.runDir },
  };
}

/** The MCP client config file claude reads with --mcp-config, and custom commands get as {{mcp_config}}. */
export function mcpConfigFile(run: Pick<AgentRun, 'mcpUrl' | 'runDir' | 'tokenEnv'>): string {
  const server = canopyStdioServer(run);
  const env = { ...server.env, [run.tokenEnv]: `\${${run.tokenEnv}}` };
  // claude starts its first turn without waiting for a stdio server unless it is `alwaysLoad`: the model would not see the tools.
  const canopy = { type: 'stdio', command: server.command, args: server.args, env, alwaysLoad: true };
  return JSON.stringify({ mcpServers: { canopy } });
}
