// `canopy loop preflight`: whether a loop is ready to run; exits 1 when a check fails.
import type { Command } from 'commander';
import type { PreflightReport } from '../../../client/preflight-service';
import { action, emit, table } from '../../output';

export function registerLoopPreflight(loop: Command): void {
  loop
    .command('preflight <loop_id>')
    .description('Check that a loop can run: platforms on PATH, workdir a clean git repository, graph valid, specs pending')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { preflight } = require('../../../client/preflight-service') as typeof import('../../../client/preflight-service');
        const report = await withContext((ctx) => preflight(ctx, loopId));
        emit(report, options, describe);
        if (!report.ok) process.exitCode = 1;
      }),
    );
}

function describe(report: PreflightReport): string {
  const rows = report.checks.map((check) => [check.ok ? 'ok' : 'NO', check.name, check.detail]);
  return `${table(rows)}\n${report.ok ? 'Ready to run.' : 'Not ready: fix the checks marked NO.'}`;
}
