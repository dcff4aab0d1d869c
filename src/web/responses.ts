// How the web server answers: JSON for the API, the app's files, and the headers every answer carries.
import type http from 'node:http';

/**
 * Only the app's own scripts and styles run; the page loads nothing from elsewhere, is framed by
 * nobody, and an agent's output that slips into markup still cannot load or run anything.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: http.OutgoingHttpHeaders = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

export function sendJson(response: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): void {
  send(response, status, 'application/json; charset=utf-8', JSON.stringify(body), headers);
}

export function send(
  response: http.ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  headers: http.OutgoingHttpHeaders = {},
): void {
  response.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': contentType, ...headers }).end(body);
}

/** A refusal the page shows as it is: `error` a code, `message` what to do. */
export function sendRefusal(response: http.ServerResponse, status: number, error: string, message: string): void {
  sendJson(response, status, { error, message });
}

export function redirect(response: http.ServerResponse, location: string, headers: http.OutgoingHttpHeaders = {}): void {
  response.writeHead(303, { ...SECURITY_HEADERS, Location: location, ...headers }).end();
}

/** The headers of a server-sent event stream. */
export function startEventStream(response: http.ServerResponse): void {
  response.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
}
