// Where a loop run's time goes beyond its node steps, read from its history's server timestamps:
// the steps themselves, the fixed cost before the first node (begin the run, open the spec) and
// after the last (finish the spec, find no next one, finish the run), for a loop with a host (its
// run and nodes on the host's queue) and one with none (both on the shared queue). On either, the
// server hands each node to the worker in its reply to the task that scheduled it.
import type { temporal } from '@temporalio/proto';
import type { ClientContext } from '../src/client/context';
import { updateLoop } from '../src/client/loops-service';
import { loopWorkflowId } from '../src/contract';
import { chainLoop, stepGaps } from './engine';

export interface RunAnatomy {
  /** Between consecutive node activities' scheduling, in ms. */
  stepMs: number[];
  /** From the workflow's start to its first node's scheduling. */
  beforeFirstNodeMs: number;
  /** From the last node's completion to the workflow's close. */
  afterLastNodeMs: number;
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const eventMs = (event: HistoryEvent): number => Number(event.eventTime!.seconds) * 1000 + (event.eventTime!.nanos ?? 0) / 1e6;

/** Runs a fresh chain of `length` checks to its end (on its host's queue, or with none) and reads its history. */
export async function runAnatomy(ctx: ClientContext, length: number, onHost: boolean, workdirs: string[]): Promise<RunAnatomy> {
  const loopId = await chainLoop(ctx, length, workdirs);
  if (!onHost) await updateLoop(ctx, { loop_id: loopId, host: null });
  await stepGaps(ctx, loopId);
  const history = await (await ctx.temporal()).workflow.getHandle(loopWorkflowId(loopId)).fetchHistory();
  const events = history.events ?? [];
  const nodes = events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runNode');
  const lastNodeId = Number(nodes.at(-1)!.eventId);
  const lastNodeDone = events.find((event) => Number(event.activityTaskCompletedEventAttributes?.scheduledEventId) === lastNodeId)!;
  const scheduled = nodes.map(eventMs);
  return {
    stepMs: scheduled.slice(1).map((at, i) => at - scheduled[i]),
    beforeFirstNodeMs: scheduled[0] - eventMs(events[0]),
    afterLastNodeMs: eventMs(events.at(-1)!) - eventMs(lastNodeDone),
  };
}
