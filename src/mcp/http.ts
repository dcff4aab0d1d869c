// MCP over Streamable HTTP, served by `canopy up`: loopback only, Host and Origin checked, and every request needs a bearer token.
// The same loopback server carries the web app's routes beside /mcp when it is given them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ClientContext } from '../client/context';
import { accessOf } from './authenticate';
import { operatorTokenPath } from './operator-token';
import { hostOrOriginRefusal } from './request-origin';
import { createMcpServer } from './server';

const LOOPBACK = '127.0.0.1';
const MCP_PATH = '/mcp';

/**
 * How long a request may take to arrive whole (an MCP message is a few kilobytes on loopback): one
 * whose body stops short of its Content-Length gets 408 and its connection closed instead of
 * holding it for Node's default of five minutes. Node looks at open requests every
 * `connectionsCheckingInterval`, 30 s by default, so that is shortened too.
 */
const REQUEST_ARRIVAL = { requestTimeout: 10_000, headersTimeout: 10_000, connectionsCheckingInterval: 1_000 };

export interface McpHttpOptions {
  ctx: ClientContext;
  /** 0 picks a free port. */
  port: number;
  /** Null serves agents only: run tokens are the only ones accepted (a worker's own endpoint). */
  operatorToken: string | null;
  /** The setting named when the port is taken. */
  portSetting?: string;
  /** What answers every path but /mcp (the web app); without it they get 404. */
  web?: LoopbackRoutes;
  /** Where a reverse proxy serves this server, whose host and origin are accepted beside loopback ones. */
  publicOrigin?: string | null;
}

/** Serves a request that passed the Host and Origin checks. */
export type LoopbackRoutes = (request: http.IncomingMessage, response: http.ServerResponse) => Promise<void>;

export interface LoopbackServerOptions {
  /** 0 picks a free port. */
  port: number;
  /** The setting named when the port is taken. */
  portSetting: string;
  /** Names the server in its errors. */
  label: string;
  routes: LoopbackRoutes;
  /** Where a reverse proxy serves this server, whose host and origin are accepted beside loopback ones. */
  publicOrigin?: string | null;
}

export interface LoopbackServer {
  port: number;
  close(): Promise<void>;
}

export interface McpHttpServer {
  url: string;
  close(): Promise<void>;
}

/** Where the endpoint answers; known from the port alone, before the server starts. */
export function mcpEndpointUrl(port: number): string {
  return `http://${LOOPBACK}:${port}${MCP_PATH}`;
}

export async function startMcpHttpServer(options: McpHttpOptions): Promise<McpHttpServer> {
  const server = await startLoopbackServer({
    port: options.port,
    portSetting: options.portSetting ?? 'CANOPY_MCP_PORT',
    label: 'MCP',
    publicOrigin: options.publicOrigin,
    routes: (request, response) => {
      if (new URL(request.url ?? '/', 'http://localhost').pathname === MCP_PATH) return serveMcp(options, request, response);
      if (options.web) return options.web(request, response);
      sendJson(response, 404, { error: 'not_found', message: `The MCP endpoint is ${MCP_PATH}.` });
      return Promise.resolve();
    },
  });
  return { url: mcpEndpointUrl(server.port), close: () => server.close() };
}

/** An HTTP server on the loopback address whose every request passes the Host and Origin checks before `routes` sees it. */
export async function startLoopbackServer(options: LoopbackServerOptions): Promise<LoopbackServer> {
  const server = http.createServer(REQUEST_ARRIVAL, (request, response) => {
    const refusal = hostOrOriginRefusal(request.headers, request.socket.localPort!, options.publicOrigin ?? null);
    if (refusal) return sendJson(response, 403, { error: 'forbidden', message: refusal });
    options.routes(request, response).catch((error: unknown) => {
      console.error(`canopy ${options.label.toLowerCase()}: request failed:`, error);
      if (!response.headersSent)
        sendJson(response, 500, { jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
    });
  });
  await listen(server, options.port, options.portSetting, options.label);
  return { port: (server.address() as AddressInfo).port, close: () => stop(server) };
}

async function serveMcp(options: McpHttpOptions, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  const access = await accessOf(options.ctx, request.headers.authorization, options.operatorToken);
  if (!access) {
    return sendJson(
      response,
      401,
      { error: 'unauthorized', message: unauthorized(options) },
      { 'WWW-Authenticate': 'Bearer realm="canopy"' },
    );
  }
  // Stateless: nothing is kept between requests, so there is no stream to open with GET nor session to end with DELETE.
  if (request.method !== 'POST') {
    return sendJson(
      response,
      405,
      { error: 'method_not_allowed', message: 'This endpoint is stateless: send MCP messages with POST.' },
      { Allow: 'POST' },
    );
  }
  const mcp = createMcpServer(options.ctx, access);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  response.on('close', () => {
    void transport.close();
    void mcp.close();
  });
  await mcp.connect(transport);
  await transport.handleRequest(request, response);
}

/** What a request without a valid token is told: an agents' endpoint asks for the run token alone, never naming the operator's file. */
function unauthorized(options: McpHttpOptions): string {
  const runToken = 'the run token canopy gave the agent in CANOPY_RUN_TOKEN, accepted while that run is running';
  return options.operatorToken === null
    ? `This endpoint serves the agents canopy starts: send the header "Authorization: Bearer $CANOPY_RUN_TOKEN", ${runToken}.`
    : `Send the header "Authorization: Bearer <token>" with the operator token from ${operatorTokenPath(options.ctx.config.home)}, ` +
        `or, from an agent canopy started, ${runToken}.`;
}

function sendJson(response: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): void {
  response.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function listen(server: http.Server, port: number, portSetting: string, label: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`${label} port ${port} on ${LOOPBACK} is in use; choose another with ${portSetting}.`)
          : error,
      );
    });
    server.listen(port, LOOPBACK, () => resolve());
  });
}

/** Stops accepting connections and waits for requests in flight (Node closes idle keep-alive connections itself). */
function stop(server: http.Server): Promise<void> {
  return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}
