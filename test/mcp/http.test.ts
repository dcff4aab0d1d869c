// The MCP HTTP endpoint: loopback only, a bearer token on every request, every tool for the operator, and a run token limited to its own run.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hashRunToken } from '../../src/run-token';
import { openContext, type ClientContext } from '../../src/client/context';
import { createLoop, listLoops } from '../../src/client/loops-service';
import { loadConfig } from '../../src/config';
import type { NodeRun } from '../../src/domain/node-run';
import { startMcpHttpServer, type McpHttpServer } from '../../src/mcp/http';
import { operatorToken } from '../../src/mcp/operator-token';
import { hostOrOriginRefusal } from '../../src/mcp/request-origin';
import { getNodeRun, insertNodeRun, updateNodeRun } from '../../src/store/node-runs-repository';
import { acceptsConnections, freePort } from '../../src/temporal/free-port';
import { directoryIn, tempDir } from '../helpers/store';
import { ALL_TOOLS, callOk, callRefused, connectHttp, SELF_REPORT_TOOLS, toolNames } from '../helpers/mcp-client';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe('MCP over HTTP', () => {
  let home: string;
  let ctx: ClientContext;
  let port: number;
  let server: McpHttpServer;
  let token: string;
  let loopId: string;

  before(async () => {
    home = tempDir('canopy-mcp-http-');
    ctx = await openContext(loadConfig({ CANOPY_HOME: home }));
    port = await freePort();
    token = await operatorToken(home);
    server = await startMcpHttpServer({ ctx, port, operatorToken: token });
    loopId = (await createLoop(ctx, { name: 'reported on', workdir: directoryIn(home) })).id;
  });

  after(async () => {
    await server.close();
    await ctx.close();
    rmSync(home, { recursive: true, force: true });
  });

  /** A raw initialize request, so the HTTP status itself can be checked. */
  const post = (headers: Record<string, string>) =>
    fetch(server.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(INITIALIZE),
    });

  const runningRun = (runToken: string) =>
    insertNodeRun(ctx.db, {
      loop_id: loopId,
      node_name: 'implement',
      kind: 'agent',
      round: 1,
      status: 'running',
      run_token_hash: hashRunToken(runToken),
    });

  it('serves /mcp on 127.0.0.1 at the port asked for, and on no other address', async () => {
    assert.equal(server.url, `http://127.0.0.1:${port}/mcp`);
    assert.equal(await acceptsConnections('127.0.0.1', port, 2_000), true);
    // 127.0.0.2 is loopback too, but only a wildcard bind (0.0.0.0 or ::) would answer there.
    const elsewhere = [
      '127.0.0.2',
      '::1',
      ...Object.values(os.networkInterfaces())
        .flat()
        .filter((i) => i && !i.internal)
        .map((i) => i!.address),
    ];
    for (const host of elsewhere) assert.equal(await acceptsConnections(host, port, 2_000), false, `the endpoint answers on ${host}`);
  });

  it('answers 401 without a token, naming the header to send and where the operator token is', async () => {
    const response = await post({});
    assert.equal(response.status, 401);
    assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/);
    const body = (await response.json()) as { message: string };
    assert.match(body.message, /Authorization: Bearer <token>/);
    assert.ok(body.message.includes(path.join(home, 'mcp-token')), body.message);
  });

  it("answers 401 on the agents' endpoint by asking for the run token, never pointing at the operator's file", async () => {
    const agents = await startMcpHttpServer({ ctx, port: 0, operatorToken: null });
    try {
      const response = await fetch(agents.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(INITIALIZE),
      });
      assert.equal(response.status, 401);
      const body = (await response.json()) as { message: string };
      assert.match(body.message, /Authorization: Bearer \$CANOPY_RUN_TOKEN/);
      assert.doesNotMatch(body.message, /operator|mcp-token/, body.message);
      assert.ok(!body.message.includes(home), body.message);
    } finally {
      await agents.close();
    }
  });

  it('answers 408 and closes the connection when a body stops short of its Content-Length', { timeout: 60_000 }, async () => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const body = JSON.stringify(INITIALIZE);
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
        `Content-Length: ${body.length + 100}\r\n\r\n${body}`,
    );
    await closed;
    assert.match(answer, /^HTTP\/1\.1 408 /, answer);
  });

  it('answers 401 to a wrong token and to a run token whose run has ended', async () => {
    assert.equal((await post({ Authorization: `Bearer not-${token}` })).status, 401);
    const ended = await runningRun('token-of-an-ended-run');
    await updateNodeRun(ctx.db, ended.id, { status: 'pass' });
    assert.equal((await post({ Authorization: 'Bearer token-of-an-ended-run' })).status, 401);
    assert.equal((await post({ Authorization: `Bearer ${token}` })).status, 200, 'the operator token opens the same request');
  });

  describe('Host and Origin (DNS rebinding)', () => {
    /** node:http, unlike fetch, sends the Host it is given, as a browser tricked by DNS rebinding would. */
    const postWith = (headers: Record<string, string>, setHost = true) =>
      rawPost(port, { Authorization: `Bearer ${token}`, ...headers }, setHost, JSON.stringify(INITIALIZE));

    it('refuses with 403 a Host that is not this endpoint, even with the operator token, saying which hosts it answers to', async () => {
      for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1:${port + 1}`, `127.0.0.2:${port}`, 'localhost']) {
        const response = await postWith({ Host: host });
        assert.equal(response.status, 403, host);
        assert.equal(response.body.error, 'forbidden');
        assert.match(response.body.message, /is refused: this endpoint answers only to 127\.0\.0\.1:\d+, localhost:\d+, \[::1\]:\d+/);
      }
      // Node's server answers 400 to an HTTP/1.1 request without Host before canopy sees it; HTTP/1.0 may omit it.
      assert.equal((await postWith({}, false)).status, 400);
      assert.match(hostOrOriginRefusal({}, port)!, /Host \(missing\) is refused/);
    });

    it('refuses with 403 an Origin that is not loopback, naming what is allowed', async () => {
      for (const origin of ['https://evil.example', 'null', 'http://localhost.evil.example', 'file://', 'http://127.0.0.1.nip.io']) {
        const response = await postWith({ Host: `127.0.0.1:${port}`, Origin: origin });
        assert.equal(response.status, 403, origin);
        assert.match(response.body.message, /Origin '.*' is refused: only requests without an Origin header .* or from a loopback origin/);
      }
    });

    it('serves the loopback names of this port, with no Origin or a loopback one', async () => {
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
        assert.equal((await postWith({ Host: host })).status, 200, host);
      }
      for (const origin of ['http://localhost:3000', 'http://127.0.0.1', `http://[::1]:${port}`, 'https://localhost']) {
        assert.equal((await postWith({ Host: `localhost:${port}`, Origin: origin })).status, 200, origin);
      }
    });
  });

  it('gives the operator token every tool but the self-reports, which a run’s own token makes', async () => {
    const client = await connectHttp(server.url, token);
    try {
      assert.deepEqual(
        await toolNames(client),
        ALL_TOOLS.filter((name) => !SELF_REPORT_TOOLS.includes(name)),
      );
      const created = await callOk(client, 'loop_create', { name: 'over http', workdir: directoryIn(home, 'other') });
      assert.ok(
        (await listLoops(ctx)).some((loop) => loop.id === created.id),
        'the loop is in the daemon’s store',
      );
    } finally {
      await client.close();
    }
  });

  it('gives a run token only the two self-report tools, and loop_complete_node reports on exactly that run', async () => {
    const own = await runningRun('token-of-this-run');
    const other = await runningRun('token-of-another-run');
    const client = await connectHttp(server.url, 'token-of-this-run');
    try {
      assert.deepEqual(await toolNames(client), SELF_REPORT_TOOLS);
      const { tools } = await client.listTools();
      for (const tool of tools)
        assert.ok(!('run_token' in (tool.inputSchema.properties ?? {})), `${tool.name} takes no token argument over HTTP`);

      await callRefused(client, 'loop_create', { name: 'not allowed', workdir: home });
      await callRefused(client, 'loop_complete_node', { status: 'fail', run_token: 'token-of-another-run' });
      const reported = await callOk(client, 'loop_complete_node', { status: 'pass', output: 'implemented and tested' });
      assert.deepEqual(reported, { run_id: own.id, node: 'implement', status: 'pass' });
    } finally {
      await client.close();
    }
    assert.deepEqual(reportOf(await getNodeRun(ctx.db, own.id)), { reported_status: 'pass', reported_output: 'implemented and tested' });
    assert.deepEqual(reportOf(await getNodeRun(ctx.db, other.id)), { reported_status: null, reported_output: null });
    assert.equal(
      (await listLoops(ctx)).some((loop) => loop.name === 'not allowed'),
      false,
    );
  });
});

function reportOf(run: NodeRun | undefined) {
  return { reported_status: run?.reported_status, reported_output: run?.reported_output };
}

/** A POST to 127.0.0.1:<port>/mcp carrying exactly these headers. */
function rawPost(port: number, headers: Record<string, string>, setHost: boolean, body: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        setHost,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body: response.statusCode === 403 ? JSON.parse(text) : text }));
      },
    );
    request.once('error', reject);
    request.end(body);
  });
}
