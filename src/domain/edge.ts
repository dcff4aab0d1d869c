// Edges: routing conditions and the four edge types.
import { z } from 'zod';
import { Id } from './common';

import { EDGE_TYPES } from './vocabulary';

export { EDGE_TYPES };
export const EdgeType = z.enum(EDGE_TYPES);
export type EdgeType = z.infer<typeof EdgeType>;

/** Edge types the engine walks; tool and agent_result are wires that never execute. */
export const EXECUTED_EDGE_TYPES: readonly EdgeType[] = ['flow', 'loopback'];

export const OUTCOME_CONDITIONS = ['pass', 'fail', 'error', 'always'] as const;

export const EdgeCondition = z
  .string()
  .min(1)
  .describe(
    'pass, fail, error (an agent or check that failed for infrastructure reasons after its infra_retries; a flow edge) or always (pass or fail); on edges leaving a router, one of its route labels',
  );

export const EdgeInput = z.object({
  source: z.string().min(1).describe('Name of the node the edge leaves'),
  target: z.string().min(1).describe('Name of the node the edge enters'),
  condition: EdgeCondition.default('pass'),
  type: EdgeType.default('flow').describe(
    'flow (default), loopback (closes a bounded loop), or the non-executed wires tool and agent_result',
  ),
});
export type EdgeInput = z.infer<typeof EdgeInput>;

export const Edge = z.object({
  id: Id,
  loop_id: Id,
  source_id: Id,
  target_id: Id,
  condition: z.string(),
  type: EdgeType,
});
export type Edge = z.infer<typeof Edge>;
