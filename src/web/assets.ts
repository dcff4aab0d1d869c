// The browser app's files, which `npm run build` bundles into dist/src/web/app/ (src/web/build-app.ts),
// and the two HTML pages the server writes itself: the app's shell and the sign-in page.
import { readFileSync } from 'node:fs';
import { compiledPath } from '../project';

export const APP_SCRIPT = '/app.js';
export const APP_STYLES = '/app.css';

export const appBundlePath = (file: 'app.js' | 'app.css'): string => compiledPath('web', 'app', file);

/** The bundled files, read once per server. */
export function readAppFiles(): { script: Buffer; styles: Buffer } {
  const read = (file: 'app.js' | 'app.css') => {
    try {
      return readFileSync(appBundlePath(file));
    } catch {
      throw new Error(`The web app is not built (${appBundlePath(file)} is missing): run npm run build.`);
    }
  };
  return { script: read('app.js'), styles: read('app.css') };
}

const head = (title: string) =>
  '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
  '<meta name="viewport" content="width=device-width, initial-scale=1">' +
  `<title>${title}</title><link rel="stylesheet" href="${APP_STYLES}"></head>`;

export const APP_SHELL = `${head('canopy')}<body><div id="app"></div><script src="${APP_SCRIPT}"></script></body></html>`;

/** All a request without a session is shown: how to get a link. No script, nothing of the store. */
export const SIGN_IN_PAGE =
  `${head('canopy: sign in')}<body><main class="sign-in"><h1>canopy</h1>` +
  '<p>Sign in with the link <code>canopy up</code> or <code>canopy web</code> printed when it started, ' +
  'or get a fresh one on the machine it runs on with <code>canopy web --print-link</code>.</p>' +
  '<p>A link opens one session and then is used up.</p></main></body></html>';
