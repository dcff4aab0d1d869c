// `canopy web`: the web app on a machine that runs no worker (it reads the same store and Temporal as
// the CLI), or with --print-link a fresh sign-in link to the app a `canopy up` or `canopy web` serves.
import type { Command } from 'commander';
import { CanopyError } from '../../domain/errors';
import { action } from '../output';

interface WebOptions {
  port?: string;
  printLink?: boolean;
  publicOrigin?: string;
}

export const PUBLIC_ORIGIN_FLAG = '--public-origin <origin>';
export const PUBLIC_ORIGIN_HELP =
  'where a reverse proxy serves the web app, e.g. https://canopy.example.com: accepted beside loopback, and the sign-in link uses it (default: CANOPY_PUBLIC_ORIGIN, else none)';

export function registerWeb(program: Command): void {
  program
    .command('web')
    .description('Serve the web app (no worker): overview, loops, node runs, the inbox; it prints a one-time sign-in link')
    .option('--port <port>', 'port on 127.0.0.1 to serve on (default: CANOPY_WEB_PORT, else 7381; 0 picks a free one)')
    .option('--print-link', 'print a fresh sign-in link to the app this home serves (canopy up or canopy web), and exit')
    .option(PUBLIC_ORIGIN_FLAG, PUBLIC_ORIGIN_HELP)
    .action(
      action(async (options: WebOptions) => {
        const { loadConfig, withPublicOrigin } = require('../../config') as typeof import('../../config');
        const config = withPublicOrigin(loadConfig(), options.publicOrigin);
        if (options.printLink) return printLink(config.home, options.port, options.publicOrigin === undefined ? null : config.publicOrigin);
        const { serveWeb } = require('./web-server') as typeof import('./web-server');
        const { untilStopped } = require('../stop-signal') as typeof import('../stop-signal');
        await untilStopped((stop) =>
          serveWeb(config, portOf(options.port ?? config.webPort, options.port ? '--port' : 'CANOPY_WEB_PORT'), stop),
        );
      }),
    );
}

/** A link to the app at `publicOrigin` when given, else on `port`, else where the home's app is served. */
function printLink(home: string, port: string | undefined, publicOrigin: string | null): void {
  const { newSignInLink } = require('../../web/sign-in-links') as typeof import('../../web/sign-in-links');
  const { servedOrigin, webOrigin } = require('../../web/server') as typeof import('../../web/server');
  const origin = publicOrigin ?? (port === undefined ? servedOrigin(home) : webOrigin(portOf(port, '--port')));
  if (!origin)
    throw new CanopyError(
      'refused',
      `No canopy up or canopy web serves the web app of ${home}: start one (it prints a link), or name its port with --port.`,
    );
  console.log(newSignInLink(home, origin));
}

/** A port as given on the command line or in the environment; refused, naming where it came from, unless 0 to 65535. */
function portOf(text: string, from: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535)
    throw new CanopyError('invalid_input', `${from}: '${text}' is not a port; give a whole number from 0 to 65535 (0 picks a free one).`);
  return port;
}
