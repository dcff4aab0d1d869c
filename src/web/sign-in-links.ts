// One-time sign-in links, as Jupyter's: a token that opens one browser session, then is gone. Each
// waiting token is a file in the home named by its hash, so `canopy web --print-link` can give one
// that a server running in another process redeems, and removing the file is what redeems it.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDirectory, writePrivateFile } from '../private-files';

/** How long a printed link may wait to be opened. */
export const SIGN_IN_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;

export const SIGN_IN_PATH = '/sign-in';

const linksDirectory = (home: string) => path.join(home, 'web-sign-in');
const fileOf = (home: string, token: string) => path.join(linksDirectory(home), createHash('sha256').update(token).digest('hex'));

/** A fresh link to the server at `origin` (http://host:port); links past their lifetime are swept as it is made. */
export function newSignInLink(home: string, origin: string, now = Date.now()): string {
  ensurePrivateDirectory(linksDirectory(home));
  sweepExpired(home, now);
  const token = randomBytes(32).toString('base64url');
  writePrivateFile(fileOf(home, token), String(now + SIGN_IN_LINK_LIFETIME_MS));
  return `${origin}${SIGN_IN_PATH}?token=${token}`;
}

/** Whether `token` was a waiting link; it is used up either way. */
export function redeemSignInToken(home: string, token: string, now = Date.now()): boolean {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return false;
  const file = fileOf(home, token);
  let expires: number;
  try {
    expires = Number(readFileSync(file, 'utf8'));
    // Of two servers redeeming one token at once, only one removes the file.
    unlinkSync(file);
  } catch {
    return false;
  }
  return expires > now;
}

function sweepExpired(home: string, now: number): void {
  for (const name of readdirSync(linksDirectory(home))) {
    const file = path.join(linksDirectory(home), name);
    try {
      if (Number(readFileSync(file, 'utf8')) <= now) rmSync(file, { force: true });
    } catch {
      // Redeemed meanwhile.
    }
  }
}
