// `canopy worker`: a worker alone, against the Temporal server at TEMPORAL_ADDRESS (workers are stateless; run many).
import type { Command } from 'commander';
import { action } from '../output';

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('Run a worker against the Temporal server at TEMPORAL_ADDRESS (default 127.0.0.1:7233)')
    .option('--metrics <host:port>', 'serve Prometheus metrics there (default: CANOPY_METRICS_ADDRESS, else none)')
    .action(
      action(async (options: { metrics?: string }) => {
        const { loadConfig, withMetrics } = require('../../config') as typeof import('../../config');
        const { hostTaskQueue } = require('../../contract') as typeof import('../../contract');
        const { daemonModule } = require('../load-on-use') as typeof import('../load-on-use');
        const { untilStopped, waitForStop } = require('../stop-signal') as typeof import('../stop-signal');
        const { startDaemon } = daemonModule();
        const { loadFileConfig } = require('../../agents/config') as typeof import('../../agents/config');
        const config = withMetrics(loadConfig(), options.metrics);
        // Refused before anything is started (the workers read it again as they start).
        loadFileConfig(config.home);
        await untilStopped(async (stop) => {
          const daemon = await startDaemon(config, { embedded: false, progress: (line) => console.log(line), stop });
          console.log(
            `Worker polling task queue '${config.taskQueue}' and host ${config.hostId}'s '${hostTaskQueue(config.taskQueue, config.hostId)}' on ${daemon.endpoint.address}. Press Ctrl-C to stop.`,
          );
          console.log(`Agents report to ${daemon.agentEndpoint.url} (run tokens only).`);
          await waitForStop(stop, daemon.running);
          console.log('Stopping…');
          await daemon.stop();
          console.log('Stopped.');
        });
      }),
    );
}
