// A request that changes something must come from the app's own page: its Origin names the host the
// request was sent to, or, sent to the public origin's host through a reverse proxy, is that very origin.
// The loopback server has already refused foreign hosts and origins (mcp/request-origin.ts); this adds
// that an Origin is required, and must be this very server.
import type { IncomingMessage } from 'node:http';

const READS = new Set(['GET', 'HEAD']);

/** Why the request may not change anything, or null when it is a read or comes from the app's page. */
export function stateChangeRefusal(request: IncomingMessage, publicOrigin: string | null): string | null {
  if (READS.has(request.method ?? 'GET')) return null;
  const origin = request.headers.origin;
  const own = ownOrigins(request.headers.host, publicOrigin);
  if (origin !== undefined && own.includes(origin.toLowerCase())) return null;
  return (
    `Origin ${origin === undefined ? '(missing)' : `'${origin}'`} is refused: a request that changes something must come from ` +
    `this server's own page (Origin ${own[0]}).`
  );
}

/** Whether the request came through an https public origin (a TLS proxy): its cookie is then only ever sent over TLS. */
export function viaSecureOrigin(request: IncomingMessage, publicOrigin: string | null): boolean {
  return atPublicHost(request.headers.host, publicOrigin) && publicOrigin.startsWith('https:');
}

function ownOrigins(host: string | undefined, publicOrigin: string | null): string[] {
  if (atPublicHost(host, publicOrigin)) return [publicOrigin];
  return [`http://${host ?? '<host>'}`, `https://${host ?? '<host>'}`];
}

/** Whether the request was sent to the public origin's host (through the reverse proxy). */
function atPublicHost(host: string | undefined, publicOrigin: string | null): publicOrigin is string {
  return publicOrigin !== null && host?.toLowerCase() === new URL(publicOrigin).host;
}
