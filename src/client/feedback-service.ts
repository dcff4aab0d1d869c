// Feedback into a running loop: a person's remark, queued in the loop's open run (its feedback update)
// for the next agent run, which is given it once. A loop with no open run takes none.
import { z } from 'zod';
import { FEEDBACK_LIMIT, feedbackUpdate } from '../contract';
import { Id, PersonName } from '../domain/common';
import { CanopyError, parseOrThrow } from '../domain/errors';
import { hasOpenRun, reconcileLoop } from './closed-runs-service';
import type { ClientContext } from './context';
import { requireLoop } from './design-service';
import { updateLoopRun } from './loop-run-updates';

export const LoopFeedbackRequest = z.strictObject({
  loop_id: Id,
  message: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(FEEDBACK_LIMIT, `must be at most ${FEEDBACK_LIMIT} characters`)
    .describe('The remark, for the next agent run: its prompt gets it as {{human_feedback}}, or under a heading at its end'),
  by: PersonName.describe('Who sends it'),
});
export type LoopFeedbackRequest = z.input<typeof LoopFeedbackRequest>;

export interface QueuedFeedback {
  loop_id: string;
  by: string;
  /** How many remarks now wait for the loop's next agent run, this one included. */
  queued: number;
}

export async function sendFeedback(ctx: ClientContext, request: LoopFeedbackRequest): Promise<QueuedFeedback> {
  const input = parseOrThrow(LoopFeedbackRequest, request, 'The feedback');
  const loop = await reconcileLoop(ctx, await requireLoop(ctx.db, input.loop_id));
  if (!hasOpenRun(loop))
    throw new CanopyError(
      'refused',
      `Loop ${loop.id} is ${loop.status} and has no open run; a remark goes to a running loop's next agent run. Start one with \`canopy loop run ${loop.id}\`.`,
    );
  const { queued } = await updateLoopRun(ctx, loop.id, feedbackUpdate, { message: input.message, by: input.by }, 'the remark');
  return { loop_id: loop.id, by: input.by, queued };
}
