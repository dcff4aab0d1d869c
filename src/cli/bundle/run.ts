// Runs the CLI: from its bundle, with V8's code compiled at build time when that cache still fits this
// node, or from the compiled modules when the bundle is not built (after `npm install`, before a build).
import { existsSync } from 'node:fs';
import { packageVersion, VERSION_FLAGS } from '../../project';
import { runBundle } from './load';
import { CLI_BUNDLE_PATH, CODE_CACHE_PATH, HELP_CODE_CACHE_PATH } from './paths';

type Cli = typeof import('../index');

/** Whether the command line asks only for help, which needs the command definitions alone. */
function asksForHelp(args: string[]): boolean {
  return args[0] === 'help' || args.some((arg) => arg === '--help' || arg === '-h');
}

/** Runs the CLI's bundle and returns its exports. */
export function loadBundle(args: string[] = []): Cli {
  return runBundle<Cli>(CLI_BUNDLE_PATH, asksForHelp(args) ? HELP_CODE_CACHE_PATH : CODE_CACHE_PATH);
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
