// `canopy loop info`: status, specs, the last run's failing node and reason, and the live workflow state.
import type { Command } from 'commander';
import { action, emit, terminalSafe } from '../../output';

export function registerLoopInfo(loop: Command): void {
  loop
    .command('info <loop_id>')
    .description('Show a loop’s status, specs, last run (failing node and reason) and live state')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { loopStatus } = require('../../../client/loop-status-service') as typeof import('../../../client/loop-status-service');
        const report = await withContext((ctx) => loopStatus(ctx, loopId));
        const { describeStatus } = require('../../text/loop-status') as typeof import('../../text/loop-status');
        emit(report, options, describeStatus);
        for (const warning of report.warnings) process.stderr.write(`warning: ${terminalSafe(warning)}\n`);
      }),
    );
}
