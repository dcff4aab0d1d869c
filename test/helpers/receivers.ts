// Notification receivers on loopback: real HTTP servers that keep every request they get and answer
// as told (a status per request in turn, the last one repeated, or never).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
}

/** `answers`: the status of each request in turn, the last one for the rest; 'never' holds the request open. */
export async function startReceiver(path: string, answers: (number | 'never')[] = [200]): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      requests.push({ path: request.url ?? '', headers: request.headers, body, at: Date.now() });
      const answer = answers[Math.min(requests.length - 1, answers.length - 1)];
      if (answer !== 'never') response.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, requests };
}
