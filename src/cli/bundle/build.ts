// Bundles the CLI (`npm run build`): the commands into one file, so a command reads one script instead
// of some six hundred modules, and the Temporal client SDK into another, then records V8's compiled
// code for both by running the read commands once each and loading the SDK; and the Ink views, each
// with Ink and React, in place of their compiled modules.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, type BuildOptions, type OutputFile, type Plugin } from 'esbuild';
import { CANOPY_BIN, compiledPath, PROJECT_ROOT } from '../../project';
import { CLI_BUNDLE_PATH, CODE_CACHE_OUT_ENV, MODULE_WRAPPER, TEMPORAL_CLIENT_BUNDLE_PATH } from './paths';

/**
 * What stays a file of its own, loaded by require: the Temporal, OpenTelemetry and MCP SDKs (a worker
 * and its activities share module state with the SDK's own), native addons, and `bindings`, which
 * finds an addon from its caller's file and is not used once the store names SQLite's addon itself.
 */
const EXTERNAL_PACKAGES = ['@temporalio/*', '@opentelemetry/*', '@modelcontextprotocol/*', 'bindings', 'pg-native'];

const SOURCES = path.join(PROJECT_ROOT, 'src');
const CLI_SOURCES = path.join(SOURCES, 'cli');

const COMMON: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // Class and function names as written: errors carry them to Temporal as failure types, and to stack traces.
  keepNames: true,
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
};

/**
 * The views are ES modules, and code in the bundle runs where Node 20 cannot `import()`: they are
 * loaded through load-esm, which stays a file of its own.
 */
const esModulesThroughLoadEsm: Plugin = {
  name: 'canopy-es-modules',
  setup(builder) {
    builder.onResolve({ filter: /\/load-esm$/ }, (args) => ({
      path: compiledFromCliBundle(path.resolve(args.resolveDir, args.path)),
      external: true,
    }));
    builder.onResolve({ filter: /\.mjs$/ }, (args) =>
      args.importer.startsWith(SOURCES)
        ? { errors: [{ text: `${args.importer} imports ${args.path}: load ES modules through src/cli/load-esm.ts` }] }
        : undefined,
    );
  },
};

/** One of canopy's compiled modules, by its path from the commands' bundle, which requires it from outside. */
const compiledFromCliBundle = (source: string): string =>
  path.relative(path.dirname(CLI_BUNDLE_PATH), compiledPath(`${path.relative(SOURCES, source)}.js`));

/**
 * canopy's requires of the client SDK and its API types, answered in the commands' bundle by the
 * SDK's own bundle (src/cli/bundle/temporal-client.ts), which stays a file of its own.
 */
const temporalClientFromItsBundle: Plugin = {
  name: 'canopy-temporal-client',
  setup(builder) {
    const loader = compiledFromCliBundle(path.join(CLI_SOURCES, 'bundle', 'temporal-client'));
    builder.onResolve({ filter: /^@temporalio\/(client|proto)$/ }, (args) =>
      args.importer.startsWith(SOURCES) ? { path: args.path.split('/')[1], namespace: 'temporal-client-bundle' } : undefined,
    );
    builder.onResolve({ filter: /^canopy:temporal-client-bundle$/ }, () => ({ path: loader, external: true }));
    builder.onLoad({ filter: /.*/, namespace: 'temporal-client-bundle' }, (args) => ({
      contents: `module.exports = require('canopy:temporal-client-bundle').temporalClientBundle().${args.path};`,
    }));
  },
};

/**
 * zod's messages in English only: its other forty-odd locales, which its namespace re-exports and
 * canopy never selects, are a sixth of the bundle that every command reads.
 */
const zodInEnglishOnly: Plugin = {
  name: 'canopy-zod-english',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${path.sep}zod${path.sep}`)
        ? { path: path.join(args.resolveDir, '..', 'locales', 'en.js'), namespace: 'zod-english' }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'zod-english' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: path.dirname(args.path),
    }));
  },
};

/**
 * Node's heavier modules, loaded where first used rather than as the bundle starts: crypto or
 * child_process each cost a command a twentieth of node's own start, and most commands never call
 * them (commander loads child_process for subcommands that are executables, which canopy has none
 * of). Each becomes a module of getters, one per export, that load the real one.
 */
const BUILTINS_ON_FIRST_USE = ['child_process', 'crypto', 'fs/promises', 'readline'];

const builtinsOnFirstUse: Plugin = {
  name: 'canopy-builtins-on-first-use',
  setup(builder) {
    const names = BUILTINS_ON_FIRST_USE.map((name) => name.replace('/', '\\/')).join('|');
    builder.onResolve({ filter: new RegExp(`^(node:)?(${names})$`) }, (args) =>
      args.namespace === 'on-first-use' ? undefined : { path: args.path.replace(/^node:/, ''), namespace: 'on-first-use' },
    );
    builder.onLoad({ filter: /.*/, namespace: 'on-first-use' }, (args) => {
      const real = `node:${args.path}`;
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const getters = Object.keys(require(real) as object).map(
        (key) => `get ${JSON.stringify(key)}() { return load()[${JSON.stringify(key)}]; }`,
      );
      return {
        contents: `let real; const load = () => (real ??= require(${JSON.stringify(real)}));\nmodule.exports = { ${getters.join(', ')} };`,
      };
    });
  },
};

/** Read commands whose code the caches hold compiled (help's in a cache of its own); others compile what they use as they run. */
const WARM_COMMANDS = [['--help'], ['loop', 'list'], ['spec', 'list'], ['queue', 'list'], ['blueprint', 'list'], ['loop', 'get', 'none']];

async function bundleCommands(): Promise<void> {
  const { outputFiles } = await build({
    ...COMMON,
    entryPoints: [path.join(CLI_SOURCES, 'index.ts')],
    outfile: CLI_BUNDLE_PATH,
    format: 'cjs',
    // ES-module builds of the libraries, so what canopy does not import is left out.
    mainFields: ['module', 'main'],
    external: EXTERNAL_PACKAGES,
    plugins: [esModulesThroughLoadEsm, temporalClientFromItsBundle, zodInEnglishOnly, builtinsOnFirstUse],
    banner: { js: MODULE_WRAPPER.head },
    footer: { js: MODULE_WRAPPER.tail },
    write: false,
  });
  writeBundle(outputFiles, CLI_BUNDLE_PATH);
}

/** The client SDK with gRPC and protobufjs, as the SDK's own CommonJS. */
async function bundleTemporalClient(): Promise<void> {
  const { outputFiles } = await build({
    ...COMMON,
    stdin: {
      contents: "module.exports = { client: require('@temporalio/client'), proto: require('@temporalio/proto') };",
      resolveDir: PROJECT_ROOT,
      sourcefile: 'temporal-client-bundle.js',
    },
    outfile: TEMPORAL_CLIENT_BUNDLE_PATH,
    format: 'cjs',
    banner: { js: MODULE_WRAPPER.head },
    footer: { js: MODULE_WRAPPER.tail },
    write: false,
  });
  writeBundle(outputFiles, TEMPORAL_CLIENT_BUNDLE_PATH);
}

function writeBundle(outputFiles: OutputFile[], bundlePath: string): void {
  for (const file of outputFiles) {
    if (file.path === bundlePath) refuseNonAscii(file.path, file.text);
    mkdirSync(path.dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.contents);
  }
}

/**
 * One character past ASCII makes V8 hold the whole bundle as two-byte text, and every command then
 * pays twice the reading and compiling: esbuild escapes strings, not regular expressions.
 */
function refuseNonAscii(bundlePath: string, text: string): void {
  const at = text.search(/[\u0080-\uffff]/);
  if (at < 0) return;
  throw new Error(
    `${path.relative(PROJECT_ROOT, bundlePath)} holds non-ASCII text at "${text.slice(Math.max(0, at - 60), at + 20)}": write it as \\uXXXX in the source`,
  );
}

/**
 * Loading Ink as the hundred-odd modules it is takes most of a second (resolving them, and scanning
 * React's CommonJS for its exports); bundled, a view loads in a fifth of that. React's CommonJS
 * code requires Node's built-ins, hence the `require` the banner makes.
 */
async function bundleViews(): Promise<void> {
  const chunks = compiledPath('cli', 'view-chunks');
  rmSync(chunks, { recursive: true, force: true });
  await build({
    ...COMMON,
    entryPoints: [path.join(CLI_SOURCES, 'tui', 'app.mts'), path.join(CLI_SOURCES, 'watch', 'view.mts')],
    outdir: compiledPath('cli'),
    outbase: CLI_SOURCES,
    outExtension: { '.js': '.mjs' },
    format: 'esm',
    splitting: true,
    chunkNames: `${path.basename(chunks)}/[name]-[hash]`,
    // Ink's developer tools load only with DEV=true, from a package canopy does not install.
    external: ['react-devtools-core'],
    banner: {
      js: "import { createRequire as canopyCreateRequire } from 'node:module'; const require = canopyCreateRequire(import.meta.url);",
    },
  });
}

/** Each run starts from the cache the previous one wrote, and writes it again with what it compiled. */
function warmCodeCache(): void {
  const home = mkdtempSync(path.join(os.tmpdir(), 'canopy-code-cache-'));
  const env: NodeJS.ProcessEnv = { ...process.env, CANOPY_HOME: home, [CODE_CACHE_OUT_ENV]: '1' };
  delete env.CANOPY_DATABASE_URL;
  try {
    for (const args of WARM_COMMANDS) spawnSync(process.execPath, [CANOPY_BIN, ...args], { env, stdio: 'ignore', timeout: 60_000 });
    const loadClient = `require(${JSON.stringify(compiledPath('cli', 'bundle', 'temporal-client.js'))}).temporalClientBundle();`;
    spawnSync(process.execPath, ['-e', loadClient], { env, stdio: 'ignore', timeout: 60_000 });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

Promise.all([bundleCommands(), bundleTemporalClient(), bundleViews()])
  .then(warmCodeCache)
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
