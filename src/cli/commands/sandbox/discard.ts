// `canopy sandbox discard`: remove a sandbox's worktree and branch, dropping its commits.
import type { Command } from 'commander';
import { action, emit } from '../../output';

export function registerSandboxDiscard(sandbox: Command): void {
  sandbox
    .command('discard <sandbox_id>')
    .description('Remove the sandbox’s worktree and delete its branch, dropping its commits')
    .option('--json', 'print JSON')
    .action(
      action(async (sandboxId: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { discardSandbox } = require('../../../client/sandbox-service') as typeof import('../../../client/sandbox-service');
        const discarded = await withContext((ctx) => discardSandbox(ctx, sandboxId));
        emit(discarded, options, (d) => `Discarded sandbox ${d.sandbox.id}: removed ${d.sandbox.path} and branch ${d.sandbox.branch}.`);
      }),
    );
}
