// Spec queues: named, ordered lists of existing specs that a loop run can drain instead of its own specs.
import { z } from 'zod';
import { Id } from '../domain/common';
import { CanopyError, notFound, parseOrThrow } from '../domain/errors';
import { QueueName, type Queue } from '../domain/spec';
import { isUniqueViolation } from '../store/constraint-errors';
import {
  addSpecToQueue,
  createQueue as insertQueue,
  deleteQueue as deleteQueueRow,
  getQueue,
  listQueues as listQueueRows,
  removeSpecFromQueue,
  reorderQueue as reorderQueueRows,
} from '../store/queues-repository';
import type { ClientContext } from './context';
import { requireSpec } from './specs-service';

export const CreateQueueRequest = z.object({ name: QueueName.describe('Queue name, unique') }).strict();

export const QueueSpecRequest = z.object({ queue_id: Id, spec_id: Id }).strict();

export const AddQueueSpecRequest = QueueSpecRequest.extend({
  index: z.number().int().min(0).optional().describe('Place in the queue, 0 first (default: at the end)'),
}).strict();

export const ReorderQueueRequest = z
  .object({ queue_id: Id, spec_ids: z.array(Id).describe('Every spec of the queue exactly once, in the new order') })
  .strict();

export const DeleteQueueRequest = z.object({ queue_id: Id }).strict();

const FIND_QUEUES_HINT = 'List queues with `canopy queue list` (MCP: queue_list).';

export async function createQueue(ctx: ClientContext, request: unknown): Promise<Queue> {
  const { name } = parseOrThrow(CreateQueueRequest, request, 'The queue');
  return insertQueue(ctx.db, name).catch((error: unknown) => {
    throw isUniqueViolation(error) ? new CanopyError('conflict', `A queue named '${name}' already exists; choose another name.`) : error;
  });
}

export async function listQueues(ctx: ClientContext): Promise<Queue[]> {
  return listQueueRows(ctx.db);
}

export async function addQueueSpec(ctx: ClientContext, request: unknown): Promise<Queue> {
  const { queue_id, spec_id, index } = parseOrThrow(AddQueueSpecRequest, request, 'The request');
  const queue = await requireQueue(ctx, queue_id);
  await requireSpec(ctx, spec_id);
  if (queue.spec_ids.includes(spec_id)) {
    throw new CanopyError('conflict', `Spec ${spec_id} is already in queue ${queue_id}; move it with queue_reorder.`);
  }
  return (await addSpecToQueue(ctx.db, queue_id, spec_id, index))!;
}

export async function removeQueueSpec(ctx: ClientContext, request: unknown): Promise<Queue> {
  const { queue_id, spec_id } = parseOrThrow(QueueSpecRequest, request, 'The request');
  const queue = await requireQueue(ctx, queue_id);
  if (!queue.spec_ids.includes(spec_id)) {
    throw new CanopyError(
      'not_found',
      `Spec ${spec_id} is not in queue ${queue_id}; it holds: ${queue.spec_ids.join(', ') || '(nothing)'}.`,
    );
  }
  return (await removeSpecFromQueue(ctx.db, queue_id, spec_id))!;
}

/** The new order must list every spec of the queue exactly once; the error names what is missing or extra. */
export async function reorderQueue(ctx: ClientContext, request: unknown): Promise<Queue> {
  const { queue_id, spec_ids } = parseOrThrow(ReorderQueueRequest, request, 'The request');
  const queue = await reorderQueueRows(ctx.db, queue_id, spec_ids);
  if (!queue) throw notFound('queue', queue_id, FIND_QUEUES_HINT);
  return queue;
}

/** Deletes the queue; its specs stay. */
export async function deleteQueue(ctx: ClientContext, request: unknown): Promise<{ queue_id: string; deleted: true }> {
  const { queue_id } = parseOrThrow(DeleteQueueRequest, request, 'The request');
  if (!(await deleteQueueRow(ctx.db, queue_id))) throw notFound('queue', queue_id, FIND_QUEUES_HINT);
  return { queue_id, deleted: true };
}

async function requireQueue(ctx: ClientContext, queueId: string): Promise<Queue> {
  const queue = await getQueue(ctx.db, queueId);
  if (!queue) throw notFound('queue', queueId, FIND_QUEUES_HINT);
  return queue;
}
