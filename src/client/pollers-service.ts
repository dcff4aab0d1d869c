// Who polls canopy's task queues: the workers on the shared queue and on each host's own, and the
// warning a read of a loop carries when no worker serves its host.
import type { Connection } from '@temporalio/client';
import type { CanopyConfig } from '../config';
import { hostTaskQueue } from '../contract';
import type { Loop } from '../domain/loop';
import { temporalProto } from '../temporal/sdk';
import { LIVE_STATE_CONNECT_TIMEOUT_MS, type ClientContext } from './context';

export type WorkflowService = Pick<Connection, 'workflowService'>;

/** The identities of the workers polling a task queue for tasks of one type. */
export async function pollerIdentities(connection: WorkflowService, namespace: string, taskQueue: string, type: 'workflow' | 'activity') {
  const { TaskQueueType } = temporalProto().temporal.api.enums.v1;
  const response = await connection.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: type === 'workflow' ? TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW : TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
  });
  return (response.pollers ?? []).map((poller) => poller.identity ?? '');
}

/** Workers running the workflows of a task queue: canopy's shared one, or a host's (0 when none). */
export async function countWorkflowPollers(connection: WorkflowService, config: CanopyConfig, taskQueue: string): Promise<number> {
  return (await pollerIdentities(connection, config.namespace, taskQueue, 'workflow')).length;
}

/** Workers polling a host's own queue, where its loops' nodes wait (0 when none). */
export async function countHostPollers(connection: WorkflowService, config: CanopyConfig, hostId: string): Promise<number> {
  return (await pollerIdentities(connection, config.namespace, hostTaskQueue(config.taskQueue, hostId), 'activity')).length;
}

/** What a person is told about a loop whose host's queue no worker polls. */
export function unservedHostWarning(loop: Pick<Loop, 'name'> & { host: string }): string {
  return `no worker serves host '${loop.host}' of loop '${loop.name}'; its runs wait until a worker with CANOPY_HOST_ID=${loop.host} starts`;
}

/** How long a read waits for Temporal to list a host's pollers once it is reached. */
const HOST_POLLERS_DEADLINE_MS = 1_500;

/**
 * The warnings a read of the loop carries: none when a worker serves its host, when it has no
 * host (any worker runs it), or when Temporal does not answer within about a second (reads never wait long).
 */
export async function hostWarnings(ctx: ClientContext, loop: Pick<Loop, 'name' | 'host'>): Promise<string[]> {
  const { host } = loop;
  if (!host) return [];
  try {
    const client = await ctx.temporal(LIVE_STATE_CONNECT_TIMEOUT_MS);
    const pollers = await client.connection.withDeadline(Date.now() + HOST_POLLERS_DEADLINE_MS, () =>
      countHostPollers(client.connection, ctx.config, host),
    );
    return pollers === 0 ? [unservedHostWarning({ name: loop.name, host })] : [];
  } catch {
    return [];
  }
}
