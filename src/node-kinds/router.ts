// The router kind: takes the edge labelled with the first route whose token the upstream output holds.
import { z } from 'zod';
import { HEAD_BUDGET, NOTHING, type NodeKindRules } from './kind';

export const RouteLabel = z
  .string()
  .min(1)
  .regex(/^[a-z0-9_-]+$/i, 'route labels use letters, digits, "_" and "-"')
  .refine((l) => !['pass', 'fail', 'always'].includes(l), 'route labels cannot be pass, fail or always');

export const RouterConfig = z
  .object({
    routes: z
      .record(RouteLabel, z.array(z.string().min(1)).min(1, 'each route needs at least one token'))
      .refine((r) => Object.keys(r).length > 0, 'a router needs at least one route')
      .describe('Route label to the tokens that select it (first label whose token appears wins)'),
    fallback: RouteLabel.describe('Label taken when no token matches'),
    ...HEAD_BUDGET,
  })
  .strict();
export type RouterConfig = z.infer<typeof RouterConfig>;

export const routerKind: NodeKindRules = {
  kind: 'router',
  config: RouterConfig,
  templates: NOTHING,
  problems: NOTHING,
  outcomes: (config) => {
    const parsed = RouterConfig.safeParse(config);
    return parsed.success ? routerLabels(parsed.data) : null;
  },
};

export interface RouteChoice {
  label: string;
  matched_token: string | null;
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
