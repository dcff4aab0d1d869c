// An agent's own report, sent to the MCP endpoint of the worker that started it: the run token is the
// only credential an agent has, and the endpoint is how it reaches canopy without the store.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CanopyError } from '../domain/errors';

export type RunTool = 'loop_complete_node' | 'loop_report_blocker';

/** What an agent canopy started is given to report on itself. */
export interface RunCallback {
  url: string;
  token: string;
  /** The run's directory, where a report is kept before it is sent (null for an agent started before canopy kept them). */
  runDir: string | null;
}

export function runCallbackFromEnv(): RunCallback {
  const url = process.env.CANOPY_MCP_URL;
  const token = process.env.CANOPY_RUN_TOKEN;
  if (!url || !token) {
    throw new CanopyError(
      'invalid_input',
      'CANOPY_MCP_URL and CANOPY_RUN_TOKEN must be set: `canopy node` commands are for agents canopy started, which have both.',
    );
  }
  return { url, token, runDir: process.env.CANOPY_RUN_DIR || null };
}

/** How long one try may take: a worker that is frozen rather than gone must not hold the agent. */
const ATTEMPT_TIMEOUT_MS = 10_000;

/** Calls one self-report tool once; returns its structured result. A refusal is a CanopyError, anything else may pass. */
export async function callRunTool(callback: RunCallback, tool: RunTool, args: Record<string, unknown>): Promise<unknown> {
  const client = new Client({ name: 'canopy-node', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(callback.url), {
    requestInit: { headers: { Authorization: `Bearer ${callback.token}` } },
  });
  await client.connect(transport, { timeout: ATTEMPT_TIMEOUT_MS });
  try {
    const result = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: ATTEMPT_TIMEOUT_MS });
    if (result.isError) {
      const text = (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');
      throw new CanopyError('refused', text || `${tool} was refused.`);
    }
    return result.structuredContent;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * Whether a failed call says the report was refused, as opposed to the worker being unreachable (down,
 * restarting, frozen, answering 5xx), which a later try may get past.
 */
export function refusedForGood(error: unknown): boolean {
  if (error instanceof CanopyError) return true;
  const { name, code } = error as { name?: string; code?: unknown };
  if (name === 'UnauthorizedError') return true;
  return typeof code === 'number' && code >= 400 && code < 500;
}
