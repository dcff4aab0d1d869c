// Bundles the browser app (`npm run build`): src/web/app/ with preact, dagre and uPlot into one
// script and one stylesheet that canopy serves itself, nothing fetched from elsewhere. The script
// must stay within its budget, gzipped, or the build fails saying by how much.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { PROJECT_ROOT } from '../project';
import { appBundlePath } from './assets';

/** The app's JavaScript, gzipped, at most. */
export const SCRIPT_BUDGET_BYTES = 250 * 1024;

const APP_SOURCES = path.join(PROJECT_ROOT, 'src', 'web', 'app');

export const gzippedScriptBytes = (): number => gzipSync(readFileSync(appBundlePath('app.js'))).length;

async function buildApp(): Promise<void> {
  await build({
    // main.ts imports app.css, which esbuild writes beside the script as app.css.
    entryPoints: { app: path.join(APP_SOURCES, 'main.ts') },
    outdir: path.dirname(appBundlePath('app.js')),
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['chrome110', 'firefox110', 'safari16'],
    platform: 'browser',
    tsconfig: path.join(APP_SOURCES, 'tsconfig.json'),
    logLevel: 'warning',
  });
  const bytes = gzippedScriptBytes();
  if (bytes > SCRIPT_BUDGET_BYTES)
    throw new Error(
      `The web app's script is ${bytes} bytes gzipped, ${bytes - SCRIPT_BUDGET_BYTES} over its budget of ${SCRIPT_BUDGET_BYTES}.`,
    );
  console.log(`web app: ${(bytes / 1024).toFixed(1)} KB of script gzipped (budget ${SCRIPT_BUDGET_BYTES / 1024} KB)`);
}

if (require.main === module)
  buildApp().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
