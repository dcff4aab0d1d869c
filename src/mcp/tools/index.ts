// Every canopy MCP tool, registered by family; which families a server gets depends on its access.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ClientContext } from '../../client/context';
import type { McpAccess } from '../access';
import { registerPeopleTools } from './people';
import { registerBlueprintTools } from './blueprints';
import { registerEnsembleTools } from './ensembles';
import { registerExportImportTools } from './export-import';
import { registerGraphTools } from './graph';
import { registerLoopTools } from './loops';
import { registerNodeRunTools } from './node-runs';
import { registerQueueTools } from './queues';
import { registerRunTools } from './runs';
import { registerSandboxTools } from './sandboxes';
import { registerSelfReportTools } from './self-report';
import { registerSpecTools } from './specs';

const OPERATOR_FAMILIES = [
  registerLoopTools,
  registerGraphTools,
  registerEnsembleTools,
  registerExportImportTools,
  registerRunTools,
  registerNodeRunTools,
  registerSpecTools,
  registerQueueTools,
  registerBlueprintTools,
  registerSandboxTools,
];

export function registerTools(server: McpServer, ctx: ClientContext, access: McpAccess): void {
  if (access.kind === 'operator') {
    for (const register of OPERATOR_FAMILIES) register(server, ctx);
    registerPeopleTools(server, ctx, access);
  }
  registerSelfReportTools(server, ctx, access);
}
