// The quorum kind: the node that joins an ensemble's members. An ensemble makes it; no design holds one alone.
import { z } from 'zod';
import { HEAD_BUDGET, NOTHING, PASS_FAIL, type NodeKindRules } from './kind';

export const QuorumConfig = z
  .object({
    min_pass: z.number().int().min(1),
    ...HEAD_BUDGET,
  })
  .strict();
export type QuorumConfig = z.infer<typeof QuorumConfig>;

export const quorumKind: NodeKindRules = {
  kind: 'quorum',
  config: QuorumConfig,
  refusedAlone: 'quorum nodes are made by ensembles; use loop_add_ensemble (or an entry in "ensembles") instead of a quorum node',
  templates: NOTHING,
  problems: NOTHING,
  outcomes: () => PASS_FAIL,
};
