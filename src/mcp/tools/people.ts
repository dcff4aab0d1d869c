// A person in the loop over MCP: the approvals waiting, deciding one, and a remark for a running loop; the MCP caller is who acts.
import os from 'node:os';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { decideApproval, listInbox } from '../../client/approvals-service';
import type { ClientContext } from '../../client/context';
import { sendFeedback } from '../../client/feedback-service';
import { Id, NodeName } from '../../domain/common';
import { APPROVAL_DECISIONS } from '../../node-kinds/approval';
import { operatorName, type McpAccess } from '../access';
import { toolResult } from '../tool-result';
import { READ_ONLY, writes } from './annotations';
import { LOOP_ID } from './fields';

const DecideRequest = z.strictObject({
  loop_id: Id.describe(LOOP_ID),
  node: NodeName.optional().describe('The approval node (approval_list names it); needed only when the loop waits at more than one'),
  decision: z.enum(APPROVAL_DECISIONS).describe('approve: the node passes and the walk goes on; reject: it fails'),
  comment: z.string().optional().describe('Why; required to reject, and then the output the next node is told ({{previous_feedback}})'),
});

const FeedbackRequest = z.strictObject({
  loop_id: Id.describe(LOOP_ID),
  message: z.string().describe("The remark, for the loop's next agent run"),
});

export function registerPeopleTools(server: McpServer, ctx: ClientContext, access: McpAccess & { kind: 'operator' }): void {
  server.registerTool(
    'approval_list',
    {
      title: 'List the approvals waiting',
      description:
        '{ approvals }: every approval node waiting for a person, of every loop on every host: loop, workdir, spec, node, round, since when, ' +
        'its deadline (when its on_timeout decides) and its rendered message. Decide one with approval_decide.',
      inputSchema: z.strictObject({}),
      annotations: READ_ONLY,
    },
    () => toolResult(async () => ({ approvals: await listInbox(ctx) })),
  );

  server.registerTool(
    'approval_decide',
    {
      title: 'Approve or reject an approval',
      description:
        'Decide the approval a loop waits at: approve and its node passes; reject (comment required) and it fails with the comment as its ' +
        'output. The walk goes on at once. Refused, changing nothing, when the loop waits at no approval, at another node, or it was decided.',
      inputSchema: DecideRequest,
      annotations: writes({ destructive: false, idempotent: false, startsAgents: true }),
    },
    (request) => toolResult(() => decideApproval(ctx, { ...request, by: operatorName(access, os.userInfo().username) })),
  );

  server.registerTool(
    'loop_feedback',
    {
      title: 'Send a running loop a remark',
      description:
        "Queue a remark for the loop's next agent run (an agent, or an ensemble's members): its prompt gets it as {{human_feedback}}, " +
        'or under a heading at its end; given once, and kept on the node run that received it (human_feedback). Accepted while the loop ' +
        'runs, is paused, blocked or waits at an approval; refused, queuing nothing, for a loop with no open run.',
      inputSchema: FeedbackRequest,
      annotations: writes({ destructive: false, idempotent: false }),
    },
    (request) => toolResult(() => sendFeedback(ctx, { ...request, by: operatorName(access, os.userInfo().username) })),
  );
}
