// Outcomes decided from upstream output alone: gate verdicts and router labels.
import type { GateConfig, RouterConfig } from '../domain/node';
import { compilePattern } from './patterns';

export interface GateVerdict {
  outcome: 'pass' | 'fail';
  reason: string;
}

export interface RouteChoice {
  label: string;
  matched_token: string | null;
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

/** The first route, in the config's key order, with a token found in the output (ignoring case); else the fallback. */
export function routeLabel(config: RouterConfig, upstreamOutput: string): RouteChoice {
  const output = upstreamOutput.toLowerCase();
  for (const [label, tokens] of Object.entries(config.routes)) {
    const token = tokens.find((candidate) => output.includes(candidate.toLowerCase()));
    if (token !== undefined) return { label, matched_token: token };
  }
  return { label: config.fallback, matched_token: null };
}

/** Every outcome a router can produce: its route labels and its fallback. */
export function routerLabels(config: RouterConfig): string[] {
  return [...new Set([...Object.keys(config.routes), config.fallback])];
}
