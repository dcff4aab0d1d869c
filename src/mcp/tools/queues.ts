// Tools for spec queues: named, ordered lists of existing specs that loop_run can drain instead of a loop's own specs.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ClientContext } from '../../client/context';
import {
  AddQueueSpecRequest,
  addQueueSpec,
  createQueue,
  CreateQueueRequest,
  deleteQueue,
  DeleteQueueRequest,
  listQueues,
  QueueSpecRequest,
  removeQueueSpec,
  reorderQueue,
  ReorderQueueRequest,
} from '../../client/queues-service';
import { toolResult } from '../tool-result';
import { READ_ONLY, writes } from './annotations';
import { describeFields, QUEUE_ID, SPEC_ID } from './fields';

export function registerQueueTools(server: McpServer, ctx: ClientContext): void {
  server.registerTool(
    'queue_create',
    {
      title: 'Create a queue',
      description:
        'Create an empty, named queue of specs. Fill it with queue_add_spec; run a loop against it with loop_run and queue_id. Queue names are unique.',
      inputSchema: CreateQueueRequest,
      annotations: writes({ destructive: false, idempotent: true }),
    },
    (input) => toolResult(() => createQueue(ctx, input)),
  );

  server.registerTool(
    'queue_list',
    {
      title: 'List queues',
      description: 'List every queue with its spec ids in order.',
      inputSchema: z.strictObject({}),
      annotations: READ_ONLY,
    },
    () => toolResult(async () => ({ queues: await listQueues(ctx) })),
  );

  server.registerTool(
    'queue_add_spec',
    {
      title: 'Add a spec to a queue',
      description:
        'Put an existing spec into a queue, at the end or at index. A spec is in a queue at most once; the spec itself is not moved or changed.',
      inputSchema: describeFields(AddQueueSpecRequest, { queue_id: QUEUE_ID, spec_id: SPEC_ID }),
      annotations: writes({ destructive: false, idempotent: true }),
    },
    (input) => toolResult(() => addQueueSpec(ctx, input)),
  );

  server.registerTool(
    'queue_remove_spec',
    {
      title: 'Remove a spec from a queue',
      description: 'Take a spec out of a queue; the spec itself stays, bound to its loop or in the backlog.',
      inputSchema: describeFields(QueueSpecRequest, { queue_id: QUEUE_ID, spec_id: SPEC_ID }),
      annotations: writes({ destructive: true, idempotent: true }),
    },
    (input) => toolResult(() => removeQueueSpec(ctx, input)),
  );

  server.registerTool(
    'queue_reorder',
    {
      title: 'Reorder a queue',
      description:
        'Set a queue’s order. spec_ids must list every spec of the queue exactly once; the error names what is missing or extra.',
      inputSchema: describeFields(ReorderQueueRequest, { queue_id: QUEUE_ID }),
      annotations: writes({ destructive: true, idempotent: true }),
    },
    (input) => toolResult(() => reorderQueue(ctx, input)),
  );

  server.registerTool(
    'queue_delete',
    {
      title: 'Delete a queue',
      description: 'Delete a queue. Only the list goes: the specs it held stay, bound to their loops or in the backlog.',
      inputSchema: describeFields(DeleteQueueRequest, { queue_id: QUEUE_ID }),
      annotations: writes({ destructive: true, idempotent: true }),
    },
    (input) => toolResult(() => deleteQueue(ctx, input)),
  );
}
