// The gate kind: passes or fails on what the upstream output contains or matches, and passes that output on.
import { z } from 'zod';
import { compilePattern } from '../graph/patterns';
import { HEAD_BUDGET, NOTHING, PASS_FAIL, type ConfigProblem, type NodeKindRules } from './kind';

export const GateConfig = z
  .object({
    output_contains: z.string().min(1).optional().describe('Upstream output must contain this text'),
    output_not_contains: z.string().min(1).optional().describe('Upstream output must not contain this text'),
    output_matches: z
      .string()
      .min(1)
      .optional()
      .describe('Upstream output must match this regular expression (RE2 syntax: no backreferences or lookarounds)'),
    ...HEAD_BUDGET,
  })
  .strict()
  .refine((c) => c.output_contains ?? c.output_not_contains ?? c.output_matches, {
    message: 'a gate needs at least one of output_contains, output_not_contains, output_matches',
  });
export type GateConfig = z.infer<typeof GateConfig>;

export const gateKind: NodeKindRules = {
  kind: 'gate',
  config: GateConfig,
  templates: NOTHING,
  problems: patternProblems,
  outcomes: () => PASS_FAIL,
};

/** A pattern must compile on the linear-time engine gates are judged with. */
function patternProblems(config: Record<string, unknown>): ConfigProblem[] {
  const source = config.output_matches;
  if (typeof source !== 'string' || source === '') return [];
  const compiled = compilePattern(source);
  if (compiled.ok) return [];
  return [
    {
      key: 'output_matches',
      message: `is not a pattern canopy can judge in linear time (${compiled.error}); use RE2 syntax: no backreferences or lookarounds`,
    },
  ];
}

export interface GateVerdict {
  outcome: 'pass' | 'fail';
  reason: string;
}

interface GateCondition {
  holds: boolean;
  description: string;
}

/** Passes when every condition the gate sets holds; the reason names each one that does not. */
export function evaluateGate(config: GateConfig, upstreamOutput: string): GateVerdict {
  const conditions = gateConditions(config, upstreamOutput);
  const failing = conditions.filter((condition) => !condition.holds);
  if (failing.length === 0) {
    return { outcome: 'pass', reason: `Gate passed: ${describe(conditions)}.` };
  }
  return { outcome: 'fail', reason: `Gate failed, this does not hold: ${describe(failing)}.` };
}

function gateConditions(config: GateConfig, output: string): GateCondition[] {
  const conditions: GateCondition[] = [];
  if (config.output_contains !== undefined) {
    conditions.push({
      holds: output.includes(config.output_contains),
      description: `output contains ${JSON.stringify(config.output_contains)}`,
    });
  }
  if (config.output_not_contains !== undefined) {
    conditions.push({
      holds: !output.includes(config.output_not_contains),
      description: `output does not contain ${JSON.stringify(config.output_not_contains)}`,
    });
  }
  if (config.output_matches !== undefined) {
    const pattern = compilePattern(config.output_matches);
    conditions.push({
      holds: pattern.ok && pattern.test(output),
      description: pattern.ok
        ? `output matches /${config.output_matches}/`
        : `output_matches /${config.output_matches}/ can be evaluated (${pattern.error})`,
    });
  }
  return conditions;
}

function describe(conditions: GateCondition[]): string {
  return conditions.map((condition) => condition.description).join(' and ');
}
