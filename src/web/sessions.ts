// Browser sessions: a random token in an HttpOnly, SameSite=Strict cookie. Each open session is a file
// in the home named by the token's hash, holding when it ends, so a restarted server (or a `canopy up`
// and a `canopy web` of one home) keeps the browsers it signed in.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import { ensurePrivateDirectory, writePrivateFile } from '../private-files';

const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

export class Sessions {
  private readonly directory: string;

  constructor(home: string) {
    this.directory = path.join(home, 'web-sessions');
    ensurePrivateDirectory(this.directory);
  }

  /**
   * Opens a session and returns the Set-Cookie header that hands it to the browser of the server on `port`;
   * `secure` when the browser reached it over TLS, which the cookie is then kept to.
   */
  start(port: number, secure: boolean, now = Date.now()): string {
    const token = randomBytes(32).toString('base64url');
    writePrivateFile(this.fileOf(token), String(now + SESSION_LIFETIME_MS));
    return `${cookieName(port)}=${token}; ${cookieAttributes(secure)}; Max-Age=${SESSION_LIFETIME_MS / 1000}`;
  }

  /** Whether the request to the server on `port` carries an open session. */
  holds(headers: IncomingHttpHeaders, port: number, now = Date.now()): boolean {
    const token = sessionToken(headers, port);
    if (!token) return false;
    let ends: number;
    try {
      ends = Number(readFileSync(this.fileOf(token), 'utf8'));
    } catch {
      return false;
    }
    if (ends > now) return true;
    rmSync(this.fileOf(token), { force: true });
    return false;
  }

  /** Ends the request's session, so its cookie opens nothing any more; returns the Set-Cookie header that clears the cookie. */
  end(headers: IncomingHttpHeaders, port: number, secure: boolean): string {
    const token = sessionToken(headers, port);
    if (token) rmSync(this.fileOf(token), { force: true });
    return `${cookieName(port)}=; ${cookieAttributes(secure)}; Max-Age=0`;
  }

  private fileOf(token: string): string {
    return path.join(this.directory, createHash('sha256').update(token).digest('hex'));
  }
}

const cookieAttributes = (secure: boolean) => `HttpOnly; SameSite=Strict; Path=/${secure ? '; Secure' : ''}`;

/** Cookies are shared by every port of a host, so the name carries the port: `canopy up` and `canopy web` side by side keep theirs. */
const cookieName = (port: number) => `canopy_session_${port}`;

function sessionToken(headers: IncomingHttpHeaders, port: number): string | undefined {
  const token = cookieValue(headers.cookie, cookieName(port));
  return token && /^[A-Za-z0-9_-]{43}$/.test(token) ? token : undefined;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const [key, ...value] = pair.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
