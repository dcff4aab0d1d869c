// Input fields several tools share, and giving a service's request schema the descriptions MCP clients read.
import { z } from 'zod';
import { Id } from '../../domain/common';

export const LOOP_ID = 'Id of the loop (loop_list lists loops; loop_create and loop_import return the id)';
export const NODE_ID = 'Id of the node (loop_get lists every node with its id)';
export const EDGE_ID = 'Id of the edge (loop_get lists every edge with its id)';
export const SPEC_ID = 'Id of the spec (spec_list lists specs)';
export const QUEUE_ID = 'Id of the queue (queue_list lists queues)';

export const LoopIdInput = z.strictObject({ loop_id: Id.describe(LOOP_ID) });

/**
 * The service's own request schema, so validation stays the service's, with the given fields
 * described for the tool list. Services describe fields for every interface at once; these texts
 * speak to an agent choosing tool arguments.
 */
export function describeFields<S extends z.ZodObject>(schema: S, descriptions: Partial<Record<keyof S['shape'] & string, string>>): S {
  const described = Object.fromEntries(
    (Object.entries(descriptions) as [string, string][]).map(([field, text]) => [field, (schema.shape[field] as z.ZodType).describe(text)]),
  );
  return schema.extend(described) as S;
}
