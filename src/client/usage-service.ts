// What a loop's agents used: tokens and cost per spec and in all, as loop info and loop_get show it.
import { agentUsageBySpec, type AgentUsage } from '../store/node-runs-repository';
import type { ClientContext } from './context';

export type UsageTotals = Omit<AgentUsage, 'spec_id'>;

export interface LoopUsage {
  total: UsageTotals;
  per_spec: AgentUsage[];
}

export async function loopUsage(ctx: ClientContext, loopId: string): Promise<LoopUsage> {
  const per_spec = await agentUsageBySpec(ctx.db, loopId);
  const sum = (key: keyof UsageTotals) => per_spec.reduce((total, spec) => total + spec[key], 0);
  return {
    total: {
      agent_runs: sum('agent_runs'),
      input_tokens: sum('input_tokens'),
      output_tokens: sum('output_tokens'),
      cost_usd: sum('cost_usd'),
    },
    per_spec,
  };
}
