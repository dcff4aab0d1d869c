// Budgets: whether what agents spent leaves room for the next node, in a loop run and on a spec.
import type { LoopSettings } from '../domain/loop';

export interface Spent {
  tokens: number;
  cost_usd: number;
  /** Agent runs that reported tokens but no cost: their dollars are unknown. */
  unpriced_runs: number;
}

export interface Budgets {
  budget_usd?: number | null;
  budget_tokens?: number | null;
}

/** One budget and what was spent against it. */
export interface Limit {
  budgets: Budgets;
  spent: Spent;
  /** Whose spending it is, as a reason names it: `this run`, `spec "x" (every run of it)`. */
  whose: string;
  /** How a person raises it: a command. */
  raise: string;
}

/** Whether a loop's settings or a spec cap spending at all. */
export function hasBudget(budgets: Budgets): boolean {
  return budgets.budget_usd != null || budgets.budget_tokens != null;
}

/** The loop run's limit, from the loop's settings. */
export function runLimit(settings: Pick<LoopSettings, 'budget_usd' | 'budget_tokens'>, spent: Spent): Limit {
  return { budgets: settings, spent, whose: 'this run', raise: '`canopy loop update --budget-usd` or `--budget-tokens`' };
}

/** A spec's limit, over every run that worked on it. */
export function specLimit(spec: { id: string; name: string } & Budgets, spent: Spent): Limit {
  return {
    budgets: spec,
    spent,
    whose: `spec "${spec.name}" (every run of it)`,
    raise: `\`canopy spec update ${spec.id} --budget-usd\` or \`--budget-tokens\``,
  };
}

/** The failure kind a budget's blocker begins with. */
export const BUDGET_EXHAUSTED = 'budget_exhausted';

/** Why `node` may not start, when some limit is used up; null while each has room. */
export function budgetExhausted(limits: Limit[], node: string): string | null {
  const over = limits.flatMap((limit) => {
    const parts = usedUp(limit);
    return parts.length ? [{ what: `${limit.whose} ${parts.join(' and ')}`, raise: limit.raise }] : [];
  });
  if (!over.length) return null;
  return (
    `${BUDGET_EXHAUSTED}: ${over.map((limit) => limit.what).join('; ')}, before ${node}. ` +
    `Raise the budget (${over.map((limit) => limit.raise).join('; ')}), then \`canopy loop continue\`.`
  );
}

function usedUp({ budgets, spent }: Limit): string[] {
  const parts: string[] = [];
  if (budgets.budget_usd != null && spent.cost_usd >= budgets.budget_usd)
    parts.push(`spent $${spent.cost_usd.toFixed(2)} of budget_usd $${budgets.budget_usd}${unknownCost(spent)}`);
  if (budgets.budget_tokens != null && spent.tokens >= budgets.budget_tokens)
    parts.push(`used ${spent.tokens} tokens of budget_tokens ${budgets.budget_tokens}`);
  return parts;
}

function unknownCost(spent: Spent): string {
  return spent.unpriced_runs ? ` (and ${spent.unpriced_runs} agent run(s) whose cost is unknown)` : '';
}
