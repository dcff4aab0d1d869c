// `canopy sandbox list`: every sandbox (or one loop's), with its run's status and the commits it holds.
import type { Command } from 'commander';
import { action, emit, table } from '../../output';

export function registerSandboxList(sandbox: Command): void {
  sandbox
    .command('list')
    .description('List sandboxes, newest first: status, branch, path, their run’s status and commits ahead of the workdir')
    .option('--loop <loop_id>', 'only this loop’s sandboxes')
    .option('--json', 'print JSON')
    .action(
      action(async (options: { loop?: string; json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { listSandboxViews } = require('../../../client/sandbox-service') as typeof import('../../../client/sandbox-service');
        const listed = await withContext((ctx) => listSandboxViews(ctx, { loop_id: options.loop }));
        emit(listed, options, ({ sandboxes }) =>
          sandboxes.length === 0
            ? 'No sandboxes.'
            : table([
                ['SANDBOX', 'LOOP', 'STATUS', 'RUN', 'AHEAD', 'BRANCH', 'PATH'],
                ...sandboxes.map((s) => [
                  s.id,
                  s.loop_id,
                  s.status === 'landed' && s.landed_commit ? `landed ${s.landed_commit.slice(0, 12)}` : s.status,
                  s.run_status ?? '-',
                  s.commits_ahead === null ? '-' : String(s.commits_ahead),
                  s.branch,
                  s.path,
                ]),
              ]),
        );
      }),
    );
}
