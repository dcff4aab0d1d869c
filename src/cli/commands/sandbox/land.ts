// `canopy sandbox land`: merge a sandbox's branch into its workdir's checked-out branch, then remove it.
import type { Command } from 'commander';
import { action, emit } from '../../output';

export function registerSandboxLand(sandbox: Command): void {
  sandbox
    .command('land <sandbox_id>')
    .description(
      'Merge the sandbox’s branch into the workdir’s checked-out branch (fast-forward when possible), then remove its worktree and branch',
    )
    .option('--json', 'print JSON')
    .action(
      action(async (sandboxId: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { landSandbox } = require('../../../client/sandbox-service') as typeof import('../../../client/sandbox-service');
        const landed = await withContext((ctx) => landSandbox(ctx, sandboxId));
        emit(
          landed,
          options,
          (l) =>
            `Landed sandbox ${l.sandbox.id}: ${l.commits} commit(s) onto ${l.onto}, now at ${l.sandbox.landed_commit}; its worktree and branch are removed.`,
        );
      }),
    );
}
