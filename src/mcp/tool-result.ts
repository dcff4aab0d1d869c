// Turns what a service returns into an MCP tool result, and a CanopyError into a refusal the caller can act on.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CanopyError } from '../domain/errors';

/**
 * Runs one service call. Its result goes out twice, as `structuredContent` and as JSON text for
 * clients that read only text; MCP wants an object there, so tools wrap lists in a named field.
 * A CanopyError becomes an `isError` result naming what to change; any other error is a bug and
 * is left to the SDK.
 */
export async function toolResult(call: () => Promise<object>): Promise<CallToolResult> {
  try {
    const result = await call();
    return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }], structuredContent: result as Record<string, unknown> };
  } catch (error) {
    if (error instanceof CanopyError) return refusal(error);
    throw error;
  }
}

/** The message already lists each issue as `field: message`; the issues also travel as data. */
function refusal(error: CanopyError): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: error.message }],
    structuredContent: { error: { code: error.code, message: error.message, issues: error.issues } },
  };
}
