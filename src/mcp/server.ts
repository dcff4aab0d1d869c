// The canopy MCP server: one McpServer carrying the tools a caller's access allows.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ClientContext } from '../client/context';
import { REPORTING_CONTRACT } from '../agents/reporting';
import { AUTHORED_KIND_LIST } from '../node-kinds/catalogue';
import { packageVersion } from '../project';
import type { McpAccess } from './access';
import { registerTools } from './tools';

const OPERATOR_INSTRUCTIONS =
  `canopy runs graphs of coding-agent steps (${AUTHORED_KIND_LIST} nodes, and ensembles) over ordered specs, durably on Temporal. ` +
  'Author a loop with loop_create and the loop_add_* tools, or in one call with loop_import; check it with loop_preflight; add work with spec_create; ' +
  'start it with loop_run. Diagnose with loop_info, then loop_node_runs_list and loop_node_run_get. Refusals change nothing and name each field to fix.';

const RUN_INSTRUCTIONS = `You are an agent canopy started for one node of a loop. ${REPORTING_CONTRACT}`;

export function createMcpServer(ctx: ClientContext, access: McpAccess): McpServer {
  const server = new McpServer(
    { name: 'canopy', version: packageVersion() },
    { instructions: access.kind === 'operator' ? OPERATOR_INSTRUCTIONS : RUN_INSTRUCTIONS },
  );
  registerTools(server, ctx, access);
  return server;
}
