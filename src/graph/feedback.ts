// What a node hands to the next: its output as text ({{previous_output}}), its result as JSON
// ({{previous_feedback}}), and the short excerpt the workflow keeps.
import type { NodeRun } from '../domain/node-run';
import { redact } from './redact';

export const FEEDBACK_OUTPUT_LIMIT = 16_000;
export const EXCERPT_LIMIT = 500;

/** A self-report's output when there is one, else stdout; stderr follows when the run wrote any. */
export function outputText(run: Pick<NodeRun, 'reported_output' | 'stdout' | 'stderr'>): string {
  const main = run.reported_output || run.stdout;
  return run.stderr.trim() ? `${main}${main.endsWith('\n') || !main ? '' : '\n'}[stderr]\n${run.stderr}` : main;
}

export function feedbackJson(run: NodeRun): string {
  return JSON.stringify({
    node: run.node_name,
    outcome: run.outcome,
    failure_kind: run.failure_kind,
    reason: run.reason,
    output: truncate(redact(outputText(run)), FEEDBACK_OUTPUT_LIMIT),
  });
}

/** Redacted before it is cut: a secret split by the cut would no longer look like one. */
export function excerpt(text: string): string {
  return truncate(redact(text).trim(), EXCERPT_LIMIT);
}

/**
 * Keeps the head and the tail, where agents and test runners put what matters. Cut text that
 * leaves canopy must be redacted first, as excerpt() and feedbackJson() do.
 */
export function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const half = Math.floor((limit - 40) / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters cut …]\n${text.slice(-half)}`;
}
