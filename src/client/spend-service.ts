// What agents spent across the store: tokens and cost per loop, per spec and per day (UTC), as the web app's spend page draws them.
import { agentRunUsages, type AgentRunUsage } from '../store/node-runs-repository';
import { listSpecs } from '../store/specs-repository';
import type { ClientContext } from './context';
import { listLoops } from './loops-service';
import type { UsageTotals } from './usage-service';

export interface SpendReport {
  per_loop: ({ loop_id: string; name: string } & UsageTotals)[];
  per_spec: ({ loop_id: string; spec_id: string | null; spec_name: string | null } & UsageTotals)[];
  /** Oldest first; a day without agent runs is not listed. */
  per_day: ({ day: string } & UsageTotals)[];
}

export async function spendReport(ctx: ClientContext): Promise<SpendReport> {
  const [runs, loops, specs] = await Promise.all([agentRunUsages(ctx.db), listLoops(ctx, { include_archived: true }), listSpecs(ctx.db)]);
  const loopNames = new Map(loops.map((loop) => [loop.id, loop.name]));
  const specNames = new Map(specs.map((spec) => [spec.id, spec.name]));
  return {
    per_loop: [...totalsBy(runs, (run) => run.loop_id)].map(([loop_id, totals]) => ({
      loop_id,
      name: loopNames.get(loop_id) ?? loop_id,
      ...totals,
    })),
    per_spec: [...totalsBy(runs, (run) => `${run.loop_id} ${run.spec_id ?? ''}`)].map(([key, totals]) => {
      const [loop_id, spec_id] = key.split(' ');
      return { loop_id, spec_id: spec_id || null, spec_name: spec_id ? (specNames.get(spec_id) ?? spec_id) : null, ...totals };
    }),
    per_day: [...totalsBy(runs, (run) => run.started_at.slice(0, 10))].map(([day, totals]) => ({ day, ...totals })),
  };
}

function totalsBy(runs: AgentRunUsage[], keyOf: (run: AgentRunUsage) => string): Map<string, UsageTotals> {
  const totals = new Map<string, UsageTotals>();
  for (const run of runs) {
    const sum = totals.get(keyOf(run)) ?? { agent_runs: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 };
    totals.set(keyOf(run), {
      agent_runs: sum.agent_runs + 1,
      input_tokens: sum.input_tokens + run.input_tokens,
      output_tokens: sum.output_tokens + run.output_tokens,
      cost_usd: sum.cost_usd + run.cost_usd,
    });
  }
  return totals;
}
