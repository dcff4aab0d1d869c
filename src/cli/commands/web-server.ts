// What `canopy web` runs, loaded when it runs: a client context and the web app on the loopback server until a stop signal.
import type { CanopyConfig } from '../../config';

export async function serveWeb(config: CanopyConfig, port: number, stop: AbortSignal): Promise<void> {
  const { openContext } = require('../../client/context') as typeof import('../../client/context');
  const { startLoopbackServer } = require('../../mcp/http') as typeof import('../../mcp/http');
  const { webRoutes, recordServedOrigin, webOrigin, newSignInLink } = require('../../web') as typeof import('../../web');
  const ctx = await openContext(config);
  try {
    const web = webRoutes(ctx, config.publicOrigin);
    const server = await startLoopbackServer({
      port,
      portSetting: '--port or CANOPY_WEB_PORT',
      label: 'Web',
      routes: web.serve,
      publicOrigin: config.publicOrigin,
    });
    const origin = config.publicOrigin ?? webOrigin(server.port);
    const forget = recordServedOrigin(config.home, origin);
    try {
      console.log(`Web: ${newSignInLink(config.home, origin)}`);
      console.log('  (a one-time sign-in link; canopy web --print-link prints another)');
      console.log('canopy web is up. Press Ctrl-C to stop.');
      await new Promise((resolve) => (stop.aborted ? resolve(undefined) : stop.addEventListener('abort', resolve, { once: true })));
      console.log('Stopping…');
      await web.close();
      await server.close();
    } finally {
      forget();
    }
    console.log('Stopped.');
  } finally {
    await ctx.close();
  }
}
