// The inbox: every approval waiting for a person, across loops and hosts (one store), and deciding one
// through the loop run's decide update, whose validator refuses what is not waiting or already decided.
import { z } from 'zod';
import { decideUpdate, type ApprovalDecision } from '../contract';
import { Id, NodeName, PersonName } from '../domain/common';
import { CanopyError, parseOrThrow } from '../domain/errors';
import { redact } from '../graph/redact';
import { APPROVAL_DECISIONS } from '../node-kinds/approval';
import { listWaitingApprovals, type WaitingApprovalRow } from '../store/approvals-repository';
import { reconcileLoop } from './closed-runs-service';
import type { ClientContext } from './context';
import { requireLoop } from './design-service';
import { updateLoopRun } from './loop-run-updates';

/** A waiting approval as the inbox shows it: its message redacted, and the command that approves it. */
export type InboxItem = WaitingApprovalRow & { decide: string };

export async function listInbox(ctx: ClientContext): Promise<InboxItem[]> {
  return (await listWaitingApprovals(ctx.db)).map((row) => ({
    ...row,
    message: redact(row.message),
    decide: `canopy approve ${row.loop_id} --node ${row.node}`,
  }));
}

const COMMENT_LIMIT = 16_000;

export const DecideApprovalRequest = z
  .strictObject({
    loop_id: Id,
    node: NodeName.optional().describe('The approval node; needed only when the loop waits at more than one'),
    decision: z.enum(APPROVAL_DECISIONS),
    comment: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(COMMENT_LIMIT, `must be at most ${COMMENT_LIMIT} characters`)
      .optional()
      .describe('Why; required to reject, and then the output the next node is told'),
    by: PersonName.describe('Who decides'),
  })
  .superRefine((request, issues) => {
    if (request.decision === 'reject' && request.comment === undefined)
      issues.addIssue({ code: 'custom', path: ['comment'], message: 'a rejection needs a comment: it is what the next node is told' });
  });
export type DecideApprovalRequest = z.input<typeof DecideApprovalRequest>;

export interface DecidedApproval {
  loop_id: string;
  node: string;
  decision: ApprovalDecision['decision'];
  by: string;
  comment: string | null;
}

/** Decides the approval the loop waits at; refused, with the reason and nothing changed, when it waits at none or it was decided. */
export async function decideApproval(ctx: ClientContext, request: DecideApprovalRequest): Promise<DecidedApproval> {
  const input = parseOrThrow(DecideApprovalRequest, request, 'The decision');
  const loop = await reconcileLoop(ctx, await requireLoop(ctx.db, input.loop_id));
  const waiting = await listWaitingApprovals(ctx.db, loop.id);
  if (loop.status !== 'waiting' || waiting.length === 0)
    throw new CanopyError('refused', `Loop ${loop.id} is ${loop.status} and waits at no approval; \`canopy inbox\` lists those that wait.`);
  const node = input.node ?? onlyNode(loop.id, waiting);
  if (!waiting.some((row) => row.node === node))
    throw new CanopyError(
      'refused',
      `Loop ${loop.id} waits at approval ${waiting.map((row) => `'${row.node}'`).join(', ')}, not at '${node}'.`,
    );
  const decision: ApprovalDecision = { node, decision: input.decision, comment: input.comment ?? null, by: input.by };
  await updateLoopRun(ctx, loop.id, decideUpdate, decision, 'the decision');
  return { loop_id: loop.id, node, decision: decision.decision, by: decision.by, comment: decision.comment };
}

function onlyNode(loopId: string, waiting: WaitingApprovalRow[]): string {
  if (waiting.length === 1) return waiting[0].node;
  throw new CanopyError(
    'refused',
    `Loop ${loopId} waits at ${waiting.length} approvals (${waiting.map((row) => row.node).join(', ')}); name one with --node (MCP: node).`,
  );
}
