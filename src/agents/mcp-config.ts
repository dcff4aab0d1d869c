// The MCP client config file claude reads with --mcp-config, and custom commands get as {{mcp_config}}:
// canopy's server for one run, its Authorization header naming the token variable for the CLI to expand.
import type { AgentRun } from './types';

export function mcpConfigFile(run: Pick<AgentRun, 'mcpUrl' | 'tokenEnv'>): string {
  return JSON.stringify({
    mcpServers: { canopy: { type: 'http', url: run.mcpUrl, headers: { Authorization: `Bearer \${${run.tokenEnv}}` } } },
  });
}
