// Where a home's web app is served, so `canopy web --print-link` can make a link to it from another
// process: the server that starts last records its address in the home, and removes it as it stops.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writePrivateFile } from '../private-files';

const servedFile = (home: string) => path.join(home, 'web-address');

export const webOrigin = (port: number): string => `http://127.0.0.1:${port}`;

/** Records `origin` as where the home's app is served; the returned function removes it if it is still this one. */
export function recordServedOrigin(home: string, origin: string): () => void {
  writePrivateFile(servedFile(home), origin);
  return () => {
    if (servedOrigin(home) === origin) rmSync(servedFile(home), { force: true });
  };
}

/** Where the home's app is served now, or null when no `canopy up` or `canopy web` serves it. */
export function servedOrigin(home: string): string | null {
  try {
    return readFileSync(servedFile(home), 'utf8').trim() || null;
  } catch {
    return null;
  }
}
