// Browser sessions of one web server: a random token in an HttpOnly, SameSite=Strict cookie, kept in
// memory only (a restarted server asks for a new sign-in link).
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

export class Sessions {
  /** Token hash → when the session ends. */
  private readonly open = new Map<string, number>();

  /** Opens a session and returns the Set-Cookie header that hands it to the browser of the server on `port`. */
  start(port: number, now = Date.now()): string {
    const token = randomBytes(32).toString('base64url');
    this.open.set(hashOf(token), now + SESSION_LIFETIME_MS);
    return `${cookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_LIFETIME_MS / 1000}`;
  }

  /** Whether the request to the server on `port` carries a session it opened that has not ended. */
  holds(headers: IncomingHttpHeaders, port: number, now = Date.now()): boolean {
    const token = cookieValue(headers.cookie, cookieName(port));
    if (!token) return false;
    const ends = this.open.get(hashOf(token));
    if (ends === undefined) return false;
    if (ends > now) return true;
    this.open.delete(hashOf(token));
    return false;
  }
}

/** Cookies are shared by every port of a host, so the name carries the port: `canopy up` and `canopy web` side by side keep theirs. */
const cookieName = (port: number) => `canopy_session_${port}`;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const [key, ...value] = pair.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
