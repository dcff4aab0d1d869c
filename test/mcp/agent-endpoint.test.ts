// The endpoint every worker serves for its own agents: run tokens only (the operator's is refused), and the
// `canopy node` shell fallback and stdio server refuse to run without the run's URL and token, or with a token of
// no running run.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openContext, type ClientContext } from '../../src/client/context';
import { startAgentEndpoint } from '../../src/daemon';
import type { McpHttpServer } from '../../src/mcp/http';
import { operatorToken } from '../../src/mcp/operator-token';
import { CANOPY_BIN, tempHome, testConfig } from '../helpers/engine';
import { tempDir } from '../helpers/store';

const run = promisify(execFile);

async function nodeComplete(env: NodeJS.ProcessEnv): Promise<{ code: number; stderr: string }> {
  return run(process.execPath, [CANOPY_BIN, 'node', 'complete', '--status', 'pass'], { env }).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
}

describe(
  'a worker’s agent endpoint',
  { skip: !process.env.CANOPY_TEST_TEMPORAL_ADDRESS && 'needs the dev server `npm test` starts' },
  () => {
    let ctx: ClientContext;
    let endpoint: McpHttpServer;
    before(async () => {
      ctx = await openContext(testConfig(tempHome()));
      endpoint = await startAgentEndpoint(ctx);
    });
    after(async () => {
      await endpoint.close();
      await ctx.close();
    });

    it('refuses the operator token: only a running run’s token is accepted', async () => {
      const token = await operatorToken(ctx.config.home);
      const response = await fetch(endpoint.url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(response.status, 401);
    });

    it('canopy node complete refuses without CANOPY_MCP_URL and CANOPY_RUN_TOKEN, naming both', async () => {
      const env = { ...process.env };
      delete env.CANOPY_MCP_URL;
      delete env.CANOPY_RUN_TOKEN;
      const { code, stderr } = await nodeComplete(env);
      assert.equal(code, 2);
      assert.match(stderr, /CANOPY_MCP_URL and CANOPY_RUN_TOKEN must be set/);
    });

    it('canopy node complete fails at once with a token of no running run: a refusal is not tried again', async () => {
      const runDir = tempDir();
      const env = { ...process.env, CANOPY_MCP_URL: endpoint.url, CANOPY_RUN_TOKEN: 'not-a-run-token', CANOPY_RUN_DIR: runDir };
      const { code, stderr } = await nodeComplete(env);
      assert.notEqual(code, 0);
      assert.match(stderr, /401|unauthorized/i);
      assert.doesNotMatch(stderr, /offered again/);
    });

    it('canopy node mcp answers a report with a token of no running run as a refusal', async () => {
      const client = new Client({ name: 'test', version: '1' });
      const env = {
        PATH: process.env.PATH ?? '',
        CANOPY_MCP_URL: endpoint.url,
        CANOPY_RUN_TOKEN: 'not-a-run-token',
        CANOPY_RUN_DIR: tempDir(),
      };
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [CANOPY_BIN, 'node', 'mcp'], env }));
      try {
        const result = await client.callTool({ name: 'loop_complete_node', arguments: { status: 'pass' } });
        assert.equal(result.isError, true);
        assert.match((result.content as { text: string }[])[0].text, /401|unauthorized/i);
      } finally {
        await client.close();
      }
    });
  },
);
