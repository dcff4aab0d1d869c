// A request that changes something must come from the app's own page: its Origin names the host the
// request was sent to. The loopback server has already refused foreign hosts and non-loopback origins
// (mcp/request-origin.ts); this adds that an Origin is required, and must be this very server.
import type { IncomingMessage } from 'node:http';

const READS = new Set(['GET', 'HEAD']);

/** Why the request may not change anything, or null when it is a read or comes from the app's page. */
export function stateChangeRefusal(request: IncomingMessage): string | null {
  if (READS.has(request.method ?? 'GET')) return null;
  const origin = request.headers.origin;
  const host = request.headers.host;
  if (origin !== undefined && host !== undefined && [`http://${host}`, `https://${host}`].includes(origin.toLowerCase())) return null;
  return (
    `Origin ${origin === undefined ? '(missing)' : `'${origin}'`} is refused: a request that changes something must come from ` +
    `this server's own page (Origin http://${host ?? '<host>'}).`
  );
}
