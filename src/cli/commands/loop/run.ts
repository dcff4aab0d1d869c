// `canopy loop run`: start a loop run (its own specs, or a queue's), optionally waiting with progress.
import type { Command } from 'commander';
import type { ClientContext } from '../../../client/context';
import { action, emit, terminalSafe } from '../../output';

export function registerLoopRun(loop: Command): void {
  loop
    .command('run <loop_id>')
    .description('Start a run of the loop: it drains the loop’s pending specs, or a queue’s with --queue')
    .option('--queue <queue_id>', 'drain this queue’s pending specs instead of the loop’s own')
    .option('--sandbox', 'run in a fresh git worktree of the workdir on its own branch; `canopy sandbox land` merges it back')
    .option('--wait', 'wait for the run to end, showing progress; exit 0 only when it completed')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { queue?: string; sandbox?: boolean; wait?: boolean; json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { startLoopRun } = require('../../../client/runs-service') as typeof import('../../../client/runs-service');
        await withContext(async (ctx) => {
          const started = await startLoopRun(ctx, loopId, { queueId: options.queue, sandbox: options.sandbox });
          for (const warning of started.warnings) process.stderr.write(`warning: ${terminalSafe(warning)}\n`);
          const where = started.sandboxed ? ' in a sandbox (see `canopy sandbox list`)' : '';
          if (!options.wait) return emit(started, options, (s) => `Started ${s.workflow_id} (run ${s.run_id})${where}.`);
          const result = await waitWithProgress(ctx, loopId, !options.json);
          emit({ ...started, ...result }, options, (r) =>
            r.status === 'completed'
              ? `Loop completed: ${r.completedSpecIds.length} spec(s).`
              : `Loop failed at ${r.failingNode}${r.failureKind ? ` [${r.failureKind}]` : ''}: ${r.reason ?? ''}`,
          );
          if (result.status !== 'completed') process.exitCode = 1;
        });
      }),
    );
}

/** Waits for the run's result while printing each change of spec, node, member or status to stderr. */
async function waitWithProgress(ctx: ClientContext, loopId: string, show: boolean) {
  const { waitForLoopRun } = require('../../../client/runs-service') as typeof import('../../../client/runs-service');
  const { logProgress } = require('../../watch/progress') as typeof import('../../watch/progress');
  const progress = show ? logProgress(ctx, loopId, (line) => process.stderr.write(`… ${terminalSafe(line)}\n`), false) : null;
  try {
    return await waitForLoopRun(ctx, loopId);
  } finally {
    progress?.stop();
    await progress?.done;
  }
}
