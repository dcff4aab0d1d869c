// `canopy up`: Temporal (embedded unless TEMPORAL_ADDRESS is set), the worker and the MCP endpoint, until Ctrl-C.
import type { Command } from 'commander';
import { action } from '../output';

export function registerUp(program: Command): void {
  program
    .command('up')
    .description(
      'Run everything on this machine: Temporal (embedded dev server unless TEMPORAL_ADDRESS is set), the worker and MCP over HTTP',
    )
    .option('--metrics <host:port>', 'serve Prometheus metrics there (default: CANOPY_METRICS_ADDRESS, else none)')
    .action(
      action(async (options: { metrics?: string }) => {
        const { loadConfig, withMetrics } = require('../../config') as typeof import('../../config');
        const { holdHome, runUp } = require('./up-daemon') as typeof import('./up-daemon');
        const config = withMetrics(loadConfig(), options.metrics);
        const lock = holdHome(config.home);
        try {
          await runUp(config);
        } finally {
          lock.release();
        }
      }),
    );
}
