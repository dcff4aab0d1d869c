// Tool annotations: each tool states its own hints where it is registered, through these two helpers.
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

/** Reads the store (or Temporal) and changes nothing. */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

export interface Effect {
  /** It may overwrite or remove something; false when it only adds. */
  destructive: boolean;
  /** Repeating the same call has no further effect (the repeat may be refused, e.g. as a taken name). */
  idempotent: boolean;
  /** It starts agents, which act on the workdir and reach services beyond canopy. */
  startsAgents?: boolean;
}

export function writes(effect: Effect): ToolAnnotations {
  return {
    readOnlyHint: false,
    destructiveHint: effect.destructive,
    idempotentHint: effect.idempotent,
    openWorldHint: effect.startsAgents ?? false,
  };
}
