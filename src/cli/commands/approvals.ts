// `canopy inbox`, `canopy approve` and `canopy reject`: the approvals waiting for a person, and deciding one.
import type { Command } from 'commander';
import type { DecideApprovalRequest, InboxItem } from '../../client/approvals-service';
import { action, emit } from '../output';

interface DecideOptions {
  node?: string;
  comment?: string;
  by?: string;
  json?: boolean;
}

export function registerApprovals(program: Command): void {
  program
    .command('inbox')
    .description('List every approval waiting for a person, of every loop on every host, with its message')
    .option('--json', 'print JSON')
    .action(
      action(async (options: { json?: boolean }) => {
        const { withContext } = require('../../client/context') as typeof import('../../client/context');
        const { listInbox } = require('../../client/approvals-service') as typeof import('../../client/approvals-service');
        emit(await withContext((ctx) => listInbox(ctx)), options, inboxText);
      }),
    );
  decideCommand(program, 'approve', 'Approve the approval the loop waits at: its node passes and the walk goes on').option(
    '--comment <text>',
    'why (kept on the node run)',
  );
  decideCommand(
    program,
    'reject',
    'Reject the approval the loop waits at: its node fails, and the comment is what the next node is told',
  ).requiredOption('--comment <text>', 'why; the next node’s {{previous_feedback}} holds it');
}

function decideCommand(program: Command, decision: 'approve' | 'reject', description: string): Command {
  return program
    .command(`${decision} <loop_id>`)
    .description(description)
    .option('--node <name>', 'the approval node, when the loop waits at more than one')
    .option('--by <name>', 'who decides (default: your user name)')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: DecideOptions) => {
        const { withContext } = require('../../client/context') as typeof import('../../client/context');
        const { decideApproval } = require('../../client/approvals-service') as typeof import('../../client/approvals-service');
        const { decidedText, defaultDecider } = require('../text/approvals') as typeof import('../text/approvals');
        const request: DecideApprovalRequest = {
          loop_id: loopId,
          node: options.node,
          decision,
          comment: options.comment,
          by: options.by ?? defaultDecider(),
        };
        emit(await withContext((ctx) => decideApproval(ctx, request)), options, decidedText);
      }),
    );
}

function inboxText(items: InboxItem[]): string {
  if (items.length === 0) return 'No approval is waiting.';
  const { rejectCommand } = require('../text/approvals') as typeof import('../text/approvals');
  return items
    .map((item) =>
      [
        `${item.loop_name} (${item.loop_id}) · ${item.node} · spec ${item.spec_name ?? '-'} · round ${item.round}`,
        `  workdir  ${item.workdir}${item.host ? ` on ${item.host}` : ''}`,
        `  waiting  since ${item.waiting_since}${item.deadline ? `, decides by itself at ${item.deadline}` : ''}`,
        ...item.message.split('\n').map((line) => `  | ${line}`),
        `  decide   ${item.decide}   or   ${rejectCommand(item)}`,
      ].join('\n'),
    )
    .join('\n\n');
}
