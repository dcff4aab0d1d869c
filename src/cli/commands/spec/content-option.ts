// A spec's content from `--content <text>` or `--file <path>`, its list from `--loop <id>` or `--backlog`,
// and its budgets from `--budget-usd` and `--budget-tokens`.
import type { Command } from 'commander';
import { badOption, readText } from '../loop/json-option';

/** The content given, or undefined when neither option was. */
export function readContent(options: { content?: string; file?: string }): string | undefined {
  if (options.content !== undefined && options.file !== undefined) throw badOption('--content', 'give --content or --file, not both');
  return options.file === undefined ? options.content : readText('--file', options.file);
}

/** The loop id, null for the backlog, or undefined when neither option was given. */
export function readList(options: { loop?: string; backlog?: boolean }): string | null | undefined {
  if (options.loop !== undefined && options.backlog) throw badOption('--backlog', 'give --loop or --backlog, not both');
  return options.backlog ? null : options.loop;
}

export interface BudgetOptions {
  budgetUsd?: string;
  budgetTokens?: string;
}

/** `--budget-usd` and `--budget-tokens`: what every run together may spend on the spec. */
export function budgetOptions(command: Command, removable: boolean): Command {
  const none = removable ? '; none removes it' : '';
  return command
    .option('--budget-usd <dollars>', `what all runs may spend on agents for this spec (blocks with budget_exhausted once spent)${none}`)
    .option('--budget-tokens <n>', `agent tokens (in and out) all runs may use for this spec${none}`);
}

/** Each budget given: a number, or null for `none`; anything else reaches the spec's validation as NaN, which names the field. */
export function readBudgets(options: BudgetOptions): { budget_usd?: number | null; budget_tokens?: number | null } {
  const value = (text: string | undefined) => (text === undefined ? undefined : text === 'none' ? null : Number(text));
  return { budget_usd: value(options.budgetUsd), budget_tokens: value(options.budgetTokens) };
}
