// A real MCP client from the SDK talking to canopy's server, and the checks the MCP tests share.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { after, before } from 'node:test';
import { CANOPY_BIN, childEnv, type EngineHarness } from './engine';

export const SELF_REPORT_TOOLS = ['loop_complete_node', 'loop_report_blocker'];

/** Every tool of DESIGN.md's list, spelled as the seeds spell them; loop_info is the status view. */
export const ALL_TOOLS = [
  'loop_create',
  'loop_list',
  'loop_get',
  'loop_update',
  'loop_delete',
  'loop_archive',
  'loop_restore',
  'loop_export',
  'loop_import',
  'loop_add_node',
  'loop_update_node',
  'loop_remove_node',
  'loop_add_edge',
  'loop_remove_edge',
  'loop_update_edge',
  'loop_add_ensemble',
  'loop_update_ensemble',
  'loop_remove_ensemble',
  'loop_preflight',
  'loop_run',
  'loop_pause',
  'loop_continue',
  'loop_stop',
  'loop_reset',
  'loop_schedule_autorun',
  'loop_schedule',
  'loop_unschedule',
  'loop_info',
  ...SELF_REPORT_TOOLS,
  'loop_node_runs_list',
  'loop_node_run_get',
  'blueprint_list',
  'blueprint_create',
  'blueprint_delete',
  'spec_create',
  'spec_list',
  'spec_update',
  'spec_delete',
  'queue_create',
  'queue_list',
  'queue_add_spec',
  'queue_remove_spec',
  'queue_reorder',
  'queue_delete',
  'sandbox_list',
  'sandbox_land',
  'sandbox_discard',
  'approval_list',
  'approval_decide',
  'loop_feedback',
  'loop_copy_node',
  'loop_copy_ensemble',
].sort();

export interface StdioSession {
  client: Client;
  /** Errors the client met reading the server's stdout, such as a line that is not a protocol message. */
  errors: Error[];
  stderr(): string;
}

/** `canopy mcp` as a child process (bin/canopy.js, which loads dist/), as an MCP client starts it. */
export async function connectStdio(env: Record<string, string>): Promise<StdioSession> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CANOPY_BIN, 'mcp'], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr!.on('data', (chunk) => (stderr += chunk));
  const client = new Client({ name: 'canopy-test', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return { client, errors, stderr: () => stderr };
}

export async function connectHttp(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'canopy-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

export async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name).sort();
}

/** Calls a tool that must succeed; its text content must be its structured content as JSON. */
export async function callOk(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = textOf(result);
  assert.ok(!result.isError, `${name} was refused: ${text}`);
  assert.ok(result.structuredContent, `${name} returned no structured content`);
  assert.deepEqual(JSON.parse(text), result.structuredContent, `${name}: the text is not the structured content as JSON`);
  return result.structuredContent;
}

/** Calls a tool that must be refused with an isError result (not a protocol error); returns the refusal's text. */
export async function callRefused(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.equal(result.isError, true, `${name} should have been refused, but returned: ${textOf(result)}`);
  return textOf(result);
}

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** `canopy mcp` over stdio for a suite's tests, with the harness's home and server: opened before them, closed after. */
export function useMcpSession(h: EngineHarness): { readonly client: Client } {
  let session: StdioSession | undefined;
  before(async () => {
    session = await connectStdio(childEnv(h.config) as Record<string, string>);
  });
  after(async () => {
    await session?.client.close();
  });
  return {
    get client() {
      return session!.client;
    },
  };
}
