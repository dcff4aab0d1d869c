// `canopy loop feedback`: a remark for a running loop's next agent run.
import type { Command } from 'commander';
import type { QueuedFeedback } from '../../../client/feedback-service';
import { action, emit } from '../../output';

export function registerLoopFeedback(loop: Command): void {
  loop
    .command('feedback <loop_id>')
    .description(
      'Send a running, paused, blocked or waiting loop a remark for its next agent run: its prompt gets it as {{human_feedback}}, ' +
        'or under a heading at its end; given once, and kept on the node run that received it',
    )
    .requiredOption('--message <text>', 'the remark')
    .option('--by <name>', 'who sends it (default: your user name)')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { message: string; by?: string; json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { sendFeedback } = require('../../../client/feedback-service') as typeof import('../../../client/feedback-service');
        const { defaultDecider } = require('../../text/approvals') as typeof import('../../text/approvals');
        const request = { loop_id: loopId, message: options.message, by: options.by ?? defaultDecider() };
        emit(await withContext((ctx) => sendFeedback(ctx, request)), options, queuedText);
      }),
    );
}

function queuedText(queued: QueuedFeedback): string {
  const waiting = queued.queued === 1 ? 'it waits' : `${queued.queued} remarks wait`;
  return `Remark from ${queued.by} queued for loop ${queued.loop_id}: ${waiting} for its next agent run.`;
}
