// Nodes as authored and stored; each kind's config and rules are its module's in node-kinds/.
import { z } from 'zod';
import { NODE_KINDS } from '../node-kinds/catalogue';
import { Id, NodeName } from './common';

export const NodeKind = z.enum(NODE_KINDS);
export type NodeKind = z.infer<typeof NodeKind>;

/** A node as an author writes it (no ids). */
export const NodeInput = z.object({
  name: NodeName,
  kind: NodeKind,
  position: z.number().optional().describe('Ordering on the canvas; the entry node is the lowest-position node with no incoming flow edge'),
  config: z.record(z.string(), z.unknown()).describe('Kind-specific config'),
});
export type NodeInput = z.infer<typeof NodeInput>;

export const Node = z.object({
  id: Id,
  loop_id: Id,
  name: z.string(),
  kind: NodeKind,
  position: z.number(),
  config: z.record(z.string(), z.unknown()),
  ensemble_id: Id.nullable(),
});
export type Node = z.infer<typeof Node>;
