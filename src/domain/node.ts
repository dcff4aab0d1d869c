// Nodes: the five kinds and one strict config schema per kind.
import { z } from 'zod';
import { Id, IdleTimeoutMinutes, MaxIterations, NodeName, ProcessText, TimeoutMinutes } from './common';

export const NODE_KINDS = ['agent', 'check', 'gate', 'router', 'quorum'] as const;
export const NodeKind = z.enum(NODE_KINDS);
export type NodeKind = z.infer<typeof NodeKind>;

export { AUTHORED_NODE_KINDS } from './vocabulary';

const headBudget = { max_iterations: MaxIterations.optional().describe('Round budget when this node heads a loop') };

export const AgentConfig = z
  .object({
    platform: z.string().min(1).optional().describe('Agent platform from config.json (claude, opencode, codex, gemini, …)'),
    model: z.string().min(1).optional().describe('Model passed to the platform as {{model}}'),
    prompt_template: ProcessText.min(1, 'must not be empty').describe('Prompt with {{placeholders}}'),
    timeout_minutes: TimeoutMinutes.optional().describe('Kill the agent after this long (default 30)'),
    idle_timeout_minutes: IdleTimeoutMinutes.optional(),
    commit_rights: z.boolean().optional().describe('This node may move git HEAD; enables commit-rights enforcement'),
    require_report: z.boolean().optional().describe('A silent exit 0 fails with no_report'),
    ...headBudget,
  })
  .strict();
export type AgentConfig = z.infer<typeof AgentConfig>;

export const CheckConfig = z
  .object({
    command: ProcessText.min(1, 'must not be empty').describe('Shell command run with bash -c in the workdir'),
    timeout_minutes: TimeoutMinutes.optional().describe('Kill the command after this long (default 10)'),
    idle_timeout_minutes: IdleTimeoutMinutes.optional(),
    ...headBudget,
  })
  .strict();
export type CheckConfig = z.infer<typeof CheckConfig>;

export const GateConfig = z
  .object({
    output_contains: z.string().min(1).optional().describe('Upstream output must contain this text'),
    output_not_contains: z.string().min(1).optional().describe('Upstream output must not contain this text'),
    output_matches: z
      .string()
      .min(1)
      .optional()
      .describe('Upstream output must match this regular expression (RE2 syntax: no backreferences or lookarounds)'),
    ...headBudget,
  })
  .strict()
  .refine((c) => c.output_contains ?? c.output_not_contains ?? c.output_matches, {
    message: 'a gate needs at least one of output_contains, output_not_contains, output_matches',
  });
export type GateConfig = z.infer<typeof GateConfig>;

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
    ...headBudget,
  })
  .strict();
export type RouterConfig = z.infer<typeof RouterConfig>;

export const QuorumConfig = z
  .object({
    min_pass: z.number().int().min(1),
    ...headBudget,
  })
  .strict();
export type QuorumConfig = z.infer<typeof QuorumConfig>;

export const NODE_CONFIG_SCHEMAS = {
  agent: AgentConfig,
  check: CheckConfig,
  gate: GateConfig,
  router: RouterConfig,
  quorum: QuorumConfig,
} as const;

export type NodeConfig = AgentConfig | CheckConfig | GateConfig | RouterConfig | QuorumConfig;

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
