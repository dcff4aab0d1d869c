// An agent's own report, sent to the MCP endpoint of the worker that started it: the run token is the
// only credential an agent has, and the endpoint is how it reaches canopy without the store.
import { CanopyError } from '../../../domain/errors';

/** Calls one self-report tool at CANOPY_MCP_URL with CANOPY_RUN_TOKEN; returns its structured result. */
export async function callRunTool(tool: 'loop_complete_node' | 'loop_report_blocker', args: Record<string, unknown>): Promise<unknown> {
  const url = process.env.CANOPY_MCP_URL;
  const token = process.env.CANOPY_RUN_TOKEN;
  if (!url || !token) {
    throw new CanopyError(
      'invalid_input',
      'CANOPY_MCP_URL and CANOPY_RUN_TOKEN must be set: `canopy node` commands are for agents canopy started, which have both.',
    );
  }
  const { Client } = require('@modelcontextprotocol/sdk/client/index.js') as typeof import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } =
    require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const client = new Client({ name: 'canopy-node', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  try {
    const result = await client.callTool({ name: tool, arguments: args });
    if (result.isError) {
      const text = (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');
      throw new CanopyError('refused', text || `${tool} was refused.`);
    }
    return result.structuredContent;
  } finally {
    await client.close();
  }
}
