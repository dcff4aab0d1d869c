// What `canopy up` runs, loaded when it runs: one per home, Temporal, the worker and MCP until a stop signal.
import path from 'node:path';
import type { CanopyConfig } from '../../config';
import { CanopyError } from '../../domain/errors';
import { operatorToken, operatorTokenPath } from '../../mcp/operator-token';
import { ensurePrivateDirectory } from '../../private-files';
import { takePidLock, type PidLock } from '../../process/pid-lock';
import { daemonModule, mcpHttpModule, webModule } from '../load-on-use';
import { waitForStop } from '../stop-signal';

/**
 * One `canopy up` per home: a second would take the first's dev server for one a crashed `up` left,
 * and stop it when it found the ports taken. Checked before anything in the home is touched.
 */
export function holdHome(home: string): PidLock {
  ensurePrivateDirectory(home);
  const attempt = takePidLock(path.join(home, 'up.lock'));
  if ('taken' in attempt) return attempt.taken;
  const { pid } = attempt.holder;
  throw new CanopyError(
    'refused',
    `another canopy up (pid ${pid}) holds ${home}; stop it first (Ctrl-C where it runs, or kill ${pid}), or give this one another home with CANOPY_HOME.`,
  );
}

export async function runUp(config: CanopyConfig, stop: AbortSignal): Promise<void> {
  const { hostTaskQueue } = require('../../contract') as typeof import('../../contract');
  const { startDaemon } = daemonModule();
  const { startMcpHttpServer } = mcpHttpModule();
  const { webRoutes, recordServedOrigin, webOrigin, newSignInLink } = webModule();
  const token = await operatorToken(config.home);
  const daemon = await startDaemon(config, {
    embedded: true,
    progress: (line) => console.log(line),
    stop,
  });
  const web = webRoutes(daemon.ctx, config.publicOrigin);
  const mcp = await startMcpHttpServer({
    ctx: daemon.ctx,
    port: config.mcpPort,
    operatorToken: token,
    web: web.serve,
    publicOrigin: config.publicOrigin,
  }).catch(async (error: unknown) => {
    await daemon.stop();
    throw error;
  });
  const servedAt = config.publicOrigin ?? webOrigin(config.mcpPort);
  const forgetWebOrigin = recordServedOrigin(config.home, servedAt);
  console.log(`Temporal: ${daemon.endpoint.description}`);
  if (daemon.endpoint.server) console.log(`Temporal UI: http://127.0.0.1:${config.uiPort}`);
  console.log(
    `Worker polling task queue '${config.taskQueue}' and host ${config.hostId}'s '${hostTaskQueue(config.taskQueue, config.hostId)}' in namespace '${config.namespace}'`,
  );
  console.log(`MCP: ${mcp.url} (send "Authorization: Bearer <token>", the token is in ${operatorTokenPath(config.home)})`);
  console.log(`Web: ${newSignInLink(config.home, servedAt)}`);
  console.log('  (a one-time sign-in link; canopy web --print-link prints another)');
  console.log(`Agents report to ${daemon.agentEndpoint.url} (run tokens only).`);
  if (daemon.codec) {
    const { codecUsage } = require('../text/codec-usage') as typeof import('../text/codec-usage');
    for (const line of codecUsage(config, daemon.codec)) console.log(line);
    if (!daemon.endpoint.server) console.log('  (this Temporal server was not started here: give its UI the codec endpoint yourself)');
  }
  console.log('canopy is up. Press Ctrl-C to stop.');
  await waitForStop(stop, daemon.running);
  console.log('Stopping…');
  forgetWebOrigin();
  await web.close();
  await mcp.close();
  await daemon.stop();
  console.log('Stopped.');
}
