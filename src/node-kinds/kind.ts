// What every node kind module says about its kind: the config it takes and the rules a design holding
// it must meet. Pure: validation, CLI and MCP read these; the engine's tables are keyed by the same kinds.
import type { z } from 'zod';
import { MaxIterations, MaxStalledRounds } from '../domain/common';
import { ERROR_CONDITION } from '../graph/infra-failures';
import type { NodeKind } from './catalogue';

/** Text in a node's config that may hold placeholders, and the names it may use. */
export interface TemplateText {
  key: string;
  text: unknown;
  allowed: readonly string[];
}

/** A problem with one key of a node's config. */
export interface ConfigProblem {
  key: string;
  message: string;
}

export interface NodeKindRules {
  kind: NodeKind;
  /** The config's schema; its keys are the only ones allowed. */
  config: z.ZodObject;
  /** Why a design may not hold a node of this kind on its own; absent for the kinds a person adds. */
  refusedAlone?: string;
  /** The texts of a config that hold placeholders. */
  templates(config: Record<string, unknown>): TemplateText[];
  /** What the schema cannot see (a gate's pattern the linear-time engine cannot run). */
  problems(config: Record<string, unknown>): ConfigProblem[];
  /** The outcomes a node of this kind ends with, which the edges leaving it take; null when its config is invalid. */
  outcomes(config: Record<string, unknown>): readonly string[] | null;
}

export const PASS_FAIL = ['pass', 'fail'] as const;
/** A process can also fail for infrastructure reasons, which only error edges take. */
export const PASS_FAIL_ERROR = ['pass', 'fail', ERROR_CONDITION] as const;

/** No texts, no problems beyond the schema's. */
export const NOTHING = (): [] => [];

/** Every kind's config may set the round budget, and the watchdog, of a loop the node heads. */
export const HEAD_BUDGET = {
  max_iterations: MaxIterations.optional().describe('Round budget when this node heads a loop'),
  max_stalled_rounds: MaxStalledRounds.optional().describe(
    "When this node heads a loop: block it with no_progress once this many rounds in a row end the same way (the workdir's tree unchanged, the same node failing with the same output); 2 to 1000, wins over the loop's setting",
  ),
};
