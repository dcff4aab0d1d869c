// A loop run's budget: whether what its agents spent leaves room for the next node.
import type { LoopSettings } from '../domain/loop';

export interface Spent {
  tokens: number;
  cost_usd: number;
  /** Agent runs that reported tokens but no cost: their dollars are unknown. */
  unpriced_runs: number;
}

type Budgets = Pick<LoopSettings, 'budget_usd' | 'budget_tokens'>;

/** Whether the loop caps what a run may spend at all. */
export function hasBudget(settings: Budgets): boolean {
  return settings.budget_usd !== undefined || settings.budget_tokens !== undefined;
}

/** Why `node` may not start, when a budget of the run is used up; null while there is room. */
export function budgetExhausted(settings: Budgets, spent: Spent, node: string): string | null {
  const over: string[] = [];
  if (settings.budget_usd !== undefined && spent.cost_usd >= settings.budget_usd)
    over.push(`spent $${spent.cost_usd.toFixed(2)} of budget_usd $${settings.budget_usd}${unknownCost(spent)}`);
  if (settings.budget_tokens !== undefined && spent.tokens >= settings.budget_tokens)
    over.push(`used ${spent.tokens} tokens of budget_tokens ${settings.budget_tokens}`);
  if (!over.length) return null;
  return (
    `budget_exhausted: this run ${over.join(' and ')}, before ${node}. ` +
    'Raise the budget (`canopy loop update --budget-usd` or `--budget-tokens`), then `canopy loop continue`.'
  );
}

function unknownCost(spent: Spent): string {
  return spent.unpriced_runs ? ` (and ${spent.unpriced_runs} agent run(s) whose cost is unknown)` : '';
}
