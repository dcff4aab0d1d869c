// `canopy up`: Temporal (embedded unless TEMPORAL_ADDRESS is set), the worker and the MCP endpoint, until Ctrl-C.
import type { Command } from 'commander';
import { action } from '../output';
import { PUBLIC_ORIGIN_FLAG, PUBLIC_ORIGIN_HELP } from './web';

export function registerUp(program: Command): void {
  program
    .command('up')
    .description(
      'Run everything on this machine: Temporal (embedded dev server unless TEMPORAL_ADDRESS is set), the worker and MCP over HTTP',
    )
    .option('--metrics <host:port>', 'serve Prometheus metrics there (default: CANOPY_METRICS_ADDRESS, else none)')
    .option(PUBLIC_ORIGIN_FLAG, PUBLIC_ORIGIN_HELP)
    .action(
      action(async (options: { metrics?: string; publicOrigin?: string }) => {
        const { loadConfig, withMetrics, withPublicOrigin } = require('../../config') as typeof import('../../config');
        const { loadFileConfig } = require('../../agents/config') as typeof import('../../agents/config');
        const { holdHome, runUp } = require('./up-daemon') as typeof import('./up-daemon');
        const { untilStopped } = require('../stop-signal') as typeof import('../stop-signal');
        const config = withPublicOrigin(withMetrics(loadConfig(), options.metrics), options.publicOrigin);
        // Refused before the home is taken or anything is started (the daemon reads it again as it starts).
        loadFileConfig(config.home);
        const lock = holdHome(config.home);
        try {
          await untilStopped((stop) => runUp(config, stop));
        } finally {
          lock.release();
        }
      }),
    );
}
