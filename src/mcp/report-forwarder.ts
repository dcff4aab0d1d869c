// The MCP server canopy gives an agent CLI over stdio, as a child of the CLI: the two self-report tools,
// each report kept in the run's directory before it is forwarded to the worker's run-token endpoint, so
// a worker that is down or restarting loses none. The CLI waits on a tool call only so long: past that
// the agent is told its report is kept, and it is still offered to the worker in the background.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { REPORTING_CONTRACT } from '../agents/reporting';
import type { RunCallback } from '../client/run-callback';
import { agentReportResult, deliver, DELIVERY_WINDOW_MS, keep, type RunReport } from '../client/run-report-taker';
import { packageVersion } from '../project';
import { toolResult } from './tool-result';
import { selfReportTools } from './tools/self-report';

/** How long a tool call waits for the worker before it answers that the report is kept (CLIs time tool calls out). */
export const IN_CALL_DELIVERY_MS = 15_000;

export function createReportForwarder(callback: RunCallback): McpServer {
  const server = new McpServer(
    { name: 'canopy', version: packageVersion() },
    { instructions: `You are an agent canopy started for one node of a loop. ${REPORTING_CONTRACT}` },
  );
  const { complete, blocker } = selfReportTools({});
  const take = (report: RunReport) => toolResult(() => takeWithinCall(callback, report));
  server.registerTool(complete.name, complete.config, ({ status, output }) =>
    take({ tool: 'loop_complete_node', status, output: output ?? null }),
  );
  server.registerTool(blocker.name, blocker.config, ({ reason }) => take({ tool: 'loop_report_blocker', reason }));
  return server;
}

async function takeWithinCall(callback: RunCallback, report: RunReport): Promise<object> {
  const taken = Date.now();
  keep(callback, report);
  const delivery = await deliver(callback, report, taken + IN_CALL_DELIVERY_MS);
  if (!delivery.delivered) void deliver(callback, report, taken + DELIVERY_WINDOW_MS).catch(() => undefined);
  return agentReportResult(delivery);
}
