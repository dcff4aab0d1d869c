// `canopy up`: Temporal (embedded unless TEMPORAL_ADDRESS is set), the worker and the MCP endpoint, until Ctrl-C.
import type { Command } from 'commander';
import { startDaemon } from '../../../daemon';
import { loadConfig } from '../../../config';
import { action } from '../output';

export function registerUp(program: Command): void {
  program
    .command('up')
    .description('Run everything on this machine: Temporal (embedded dev server unless TEMPORAL_ADDRESS is set), the worker and MCP over HTTP')
    .action(
      action(async () => {
        const config = loadConfig();
        const daemon = await startDaemon(config, { embedded: true, mcpUrl: null, progress: (line) => console.log(line) });
        console.log(`Temporal: ${daemon.endpoint.description}`);
        if (daemon.endpoint.server) console.log(`Temporal UI: http://127.0.0.1:${config.uiPort}`);
        console.log(`Worker polling task queue '${config.taskQueue}' in namespace '${config.namespace}'`);
        console.log('canopy is up. Press Ctrl-C to stop.');
        await waitForStopSignal(daemon.running);
        console.log('Stopping…');
        await daemon.stop();
        console.log('Stopped.');
      }),
    );
}

/** Resolves on SIGINT or SIGTERM, or when the worker stops on its own. */
export function waitForStopSignal(running: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    running.then(done, done);
  });
}
