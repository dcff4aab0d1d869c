// The codec server: the endpoints through which the Temporal Web UI and `temporal` CLI show payloads
// canopy encrypted, to whoever holds the codec token.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { privateToken, sameSecret } from '../../private-files';
import { temporalProto } from '../sdk';

export interface CodecServerOptions {
  codec: PayloadCodec;
  token: string;
  host: string;
  /** 0 takes a free port. */
  port: number;
  /** Browser origins allowed to call it (the Temporal UI's). */
  allowedOrigins: readonly string[];
}

export interface CodecServer {
  /** http://host:port, to which a client sends `Authorization: Bearer <token>`. */
  url: string;
  /** The URL with the token as its path, for clients that cannot send a header (the Web UI). */
  endpointWithToken: string;
  close(): Promise<void>;
}

/** The most a request body may hold. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export function codecTokenPath(home: string): string {
  return path.join(home, 'codec-token');
}

export function codecToken(home: string): Promise<string> {
  return privateToken(codecTokenPath(home), 'codec token');
}

export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const server = createServer((request, response) => {
    serve(options, request, response).catch((error: unknown) => reply(response, 500, { message: String(error) }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}`;
  return {
    url,
    endpointWithToken: `${url}/${options.token}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function serve(options: CodecServerOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  allowOrigin(options.allowedOrigins, request, response);
  // A browser's preflight carries no credentials; the request that follows must.
  if (request.method === 'OPTIONS') return reply(response, 204);
  const route = /^(?:\/([^/]+))?\/(encode|decode)$/.exec(new URL(request.url ?? '/', 'http://codec').pathname);
  if (!route) return reply(response, 404, { message: 'Not found: POST /encode or /decode.' });
  if (!authorized(options.token, route[1], request.headers.authorization))
    return reply(response, 401, { message: 'Send the codec token as "Authorization: Bearer <token>" or as the first part of the path.' });
  if (request.method !== 'POST')
    return reply(response, 405, { message: `${request.method} is not allowed: POST a JSON body {"payloads": [...]}.` });
  const body = await readBody(request);
  if (body === null) return reply(response, 413, { message: `The body is larger than ${MAX_BODY_BYTES} bytes.` });
  const payloads = parsePayloads(body);
  if (typeof payloads === 'string') return reply(response, 400, { message: payloads });
  const { Payload: PayloadMessage } = temporalProto().temporal.api.common.v1;
  try {
    const coded = route[2] === 'encode' ? await options.codec.encode(payloads) : await options.codec.decode(payloads);
    reply(response, 200, {
      payloads: coded.map((payload) => PayloadMessage.toObject(PayloadMessage.fromObject(payload), { bytes: String })),
    });
  } catch (error) {
    reply(response, 422, { message: (error as Error).message });
  }
}

/** The payloads of a `{"payloads": [...]}` body in protobuf JSON (bytes as base64), or what is wrong with it. */
function parsePayloads(body: string): Payload[] | string {
  const { Payload: PayloadMessage } = temporalProto().temporal.api.common.v1;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'The body is not JSON: send {"payloads": [{"metadata": {...}, "data": "<base64>"}]}.';
  }
  const payloads = (parsed as { payloads?: unknown } | null)?.payloads;
  if (!Array.isArray(payloads)) return 'The body has no "payloads" array: send {"payloads": [{"metadata": {...}, "data": "<base64>"}]}.';
  try {
    return payloads.map((payload) => PayloadMessage.fromObject(payload as Record<string, unknown>) as Payload);
  } catch (error) {
    return `A payload is not a Temporal payload in protobuf JSON: ${(error as Error).message}.`;
  }
}

function allowOrigin(allowed: readonly string[], request: IncomingMessage, response: ServerResponse): void {
  const origin = request.headers.origin;
  if (!origin || !allowed.includes(origin)) return;
  response.setHeader('Access-Control-Allow-Origin', origin);
  response.setHeader('Vary', 'Origin');
  response.setHeader('Access-Control-Allow-Credentials', 'true');
  response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
  response.setHeader('Access-Control-Allow-Headers', 'Content-Type, Authorization, X-Namespace');
}

function authorized(token: string, inPath: string | undefined, header: string | undefined): boolean {
  const given = inPath ?? /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  return given !== undefined && sameSecret(given, token);
}

async function readBody(request: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function reply(response: ServerResponse, status: number, body?: object): void {
  response.writeHead(status, body ? { 'Content-Type': 'application/json' } : {});
  response.end(body ? JSON.stringify(body) : undefined);
}
