// Tools for the git worktrees sandboxed runs work in: list them, land one into its workdir, discard one.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ClientContext } from '../../client/context';
import { discardSandbox, landSandbox, ListSandboxesRequest, listSandboxViews } from '../../client/sandbox-service';
import { Id } from '../../domain/common';
import { toolResult } from '../tool-result';
import { READ_ONLY, writes } from './annotations';
import { describeFields, LOOP_ID } from './fields';

const SandboxIdInput = z.strictObject({ sandbox_id: Id.describe('Id of the sandbox (sandbox_list lists them)') });

export function registerSandboxTools(server: McpServer, ctx: ClientContext): void {
  server.registerTool(
    'sandbox_list',
    {
      title: 'List sandboxes',
      description:
        'List the git worktrees of sandboxed runs (loop_run with sandbox), newest first: status (active, landed, discarded), branch, path, ' +
        'host, the status of the run working in it, and commits_ahead, the commits its branch holds that the workdir’s branch lacks.',
      inputSchema: describeFields(ListSandboxesRequest, { loop_id: `${LOOP_ID}; only this loop’s sandboxes` }),
      annotations: READ_ONLY,
    },
    (input) => toolResult(() => listSandboxViews(ctx, input)),
  );

  server.registerTool(
    'sandbox_land',
    {
      title: 'Land a sandbox',
      description:
        'Merge an active sandbox’s branch into the branch checked out in its loop’s workdir (a fast-forward when possible, else a merge ' +
        'commit naming the sandbox), then remove its worktree and branch. Refused, changing nothing: while its run is open, while another ' +
        'loop runs in the same working tree (naming it), when the workdir ' +
        'or the sandbox has uncommitted changes (naming them), when the merge would conflict (naming the paths), and on another host than the sandbox’s.',
      inputSchema: SandboxIdInput,
      annotations: writes({ destructive: true, idempotent: false }),
    },
    ({ sandbox_id }) => toolResult(() => landSandbox(ctx, sandbox_id)),
  );

  server.registerTool(
    'sandbox_discard',
    {
      title: 'Discard a sandbox',
      description:
        'Remove an active sandbox’s worktree and delete its branch, dropping its commits. Refused while its run is open and on another host than the sandbox’s.',
      inputSchema: SandboxIdInput,
      annotations: writes({ destructive: true, idempotent: false }),
    },
    ({ sandbox_id }) => toolResult(() => discardSandbox(ctx, sandbox_id)),
  );
}
