// Runs the CLI: from its bundle, with V8's code compiled at build time when that cache still fits this
// node, or from the compiled modules when the bundle is not built (after `npm install`, before a build).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Script } from 'node:vm';
import { packageVersion, VERSION_FLAGS } from '../../project';
import { CLI_BUNDLE_PATH, CODE_CACHE_OUT_ENV, CODE_CACHE_PATH, HELP_CODE_CACHE_PATH } from './paths';
import { mapBundleStacks } from './stacks';

type Cli = typeof import('../index');

/** The bundle as V8 compiles it, from the build's `cache` when that was made by this node with these flags. */
export function compileBundle(cache: string = CODE_CACHE_PATH): Script {
  const cachedData = existsSync(cache) ? readFileSync(cache) : undefined;
  // The build writes the module wrapper into the file and refuses anything past ASCII in it, so
  // Latin-1 reads it as it is, a byte a character, without UTF-8's decoding.
  return new Script(readFileSync(CLI_BUNDLE_PATH, 'latin1'), { filename: CLI_BUNDLE_PATH, cachedData });
}

/** Whether the command line asks only for help, which needs the command definitions alone. */
function asksForHelp(args: string[]): boolean {
  return args[0] === 'help' || args.some((arg) => arg === '--help' || arg === '-h');
}

/** Runs the bundle as a CommonJS module and returns its exports. */
export function loadBundle(args: string[] = []): Cli {
  const cache = asksForHelp(args) ? HELP_CODE_CACHE_PATH : CODE_CACHE_PATH;
  const script = compileBundle(cache);
  const bundle = { exports: {} };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(bundle.exports, createRequire(CLI_BUNDLE_PATH), bundle, CLI_BUNDLE_PATH, path.dirname(CLI_BUNDLE_PATH));
  // Written as the process exits, so the cache holds the functions the command compiled as it ran.
  if (process.env[CODE_CACHE_OUT_ENV]) process.once('exit', () => writeFileSync(cache, script.createCachedData()));
  mapBundleStacks(CLI_BUNDLE_PATH);
  return bundle.exports as Cli;
}

/**
 * `canopy --version` alone needs no command: it is answered before the bundle is read, which would
 * take longer than the rest of the process.
 */
function asksForVersionOnly(args: string[]): boolean {
  return args.length === 1 && VERSION_FLAGS.split(', ').includes(args[0]);
}

export function runCli(): Promise<void> {
  if (asksForVersionOnly(process.argv.slice(2))) {
    process.stdout.write(`${packageVersion()}\n`);
    return Promise.resolve();
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const cli = existsSync(CLI_BUNDLE_PATH) ? loadBundle(process.argv.slice(2)) : (require('../index') as Cli);
  return cli.main();
}
