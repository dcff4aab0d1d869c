// Sending a loop's open run an update, where its validator may refuse what was asked: a refusal,
// or a run that is no longer open, is told as a refusal that names the loop and changed nothing.
import type { UpdateDefinition } from '@temporalio/common';
import { loopWorkflowId } from '../contract';
import { CanopyError } from '../domain/errors';
import { temporalClientSdk } from '../temporal/sdk';
import type { ClientContext } from './context';

/** `what` names the request in the refusal: "the decision", "the remark". */
export async function updateLoopRun<Result, Arg>(
  ctx: ClientContext,
  loopId: string,
  update: UpdateDefinition<Result, [Arg]>,
  arg: Arg,
  what: string,
): Promise<Result> {
  const { WorkflowUpdateFailedError, WorkflowNotFoundError } = temporalClientSdk();
  const client = await ctx.temporal();
  try {
    return await client.workflow.getHandle(loopWorkflowId(loopId)).executeUpdate(update, { args: [arg] });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError)
      throw new CanopyError('refused', `The run of loop ${loopId} refused ${what}: ${error.cause?.message ?? error.message}`);
    if (error instanceof WorkflowNotFoundError)
      throw new CanopyError(
        'refused',
        `Loop ${loopId} has no open run to take ${what}; \`canopy loop info ${loopId}\` shows what it is doing.`,
      );
    throw error;
  }
}
