// DNS-rebinding protection for the loopback MCP endpoint (the Streamable HTTP transport asks
// servers to validate Origin): a web page can make a browser send requests to 127.0.0.1 under a
// name it controls, so a request must name this endpoint in Host and come from no page or a local one.
import type { IncomingHttpHeaders } from 'node:http';

const LOOPBACK_HOSTNAMES = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * Why the request may not reach the endpoint listening on `port`, or null when it may. `publicOrigin` is where a
 * reverse proxy serves it (null when none): a request naming that host, and that origin, is accepted too.
 */
export function hostOrOriginRefusal(headers: IncomingHttpHeaders, port: number, publicOrigin: string | null = null): string | null {
  const allowedHosts = [
    ...LOOPBACK_HOSTNAMES.map((hostname) => `${hostname}:${port}`),
    ...(publicOrigin ? [new URL(publicOrigin).host] : []),
  ];
  const host = headers.host?.toLowerCase();
  if (!host || !allowedHosts.includes(host)) {
    return (
      `Host ${host ? `'${headers.host}'` : '(missing)'} is refused: this endpoint answers only to ${allowedHosts.join(', ')}. ` +
      'Connect to one of those addresses; a request naming another host may be a web page reaching it through DNS rebinding.'
    );
  }
  const origin = headers.origin;
  if (origin !== undefined && !isLoopbackOrigin(origin) && origin.toLowerCase() !== publicOrigin) {
    return (
      `Origin '${origin}' is refused: only requests without an Origin header (MCP clients, agents) or from a loopback origin ` +
      `(http://${LOOPBACK_HOSTNAMES.join(', http://')}, any port)${publicOrigin ? ` or ${publicOrigin}` : ''} may use this endpoint; web pages elsewhere may not.`
    );
  }
  return null;
}

function isLoopbackOrigin(origin: string): boolean {
  if (!URL.canParse(origin)) return false;
  const url = new URL(origin);
  return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTNAMES.includes(url.hostname);
}
