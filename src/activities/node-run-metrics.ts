// canopy's own metrics of each node run, through the Temporal SDK's metric meter: exported with the
// SDK's own worker metrics when the worker serves Prometheus metrics (CANOPY_METRICS_ADDRESS), and
// nothing otherwise. Labels are bounded: kinds, outcomes, failure kinds, platforms and models,
// never a loop, spec or node name.
import { Context } from '@temporalio/activity';
import type { MetricMeter } from '@temporalio/common';
import type { NodeRun } from '../domain/node-run';

/** Made from each activity's own meter, which adds that activity's tags (namespace, task queue, activity type). */
function instrumentsOf(meter: MetricMeter) {
  return {
    runs: meter.createCounter('canopy_node_runs_total', 'runs', 'Node runs ended, by kind, outcome and failure kind'),
    duration: meter.createHistogram('canopy_node_duration_seconds', 'float', 'seconds', 'How long node runs took, by kind'),
    tokens: meter.createCounter(
      'canopy_agent_tokens_total',
      'tokens',
      'Agent tokens as the CLIs reported them, by platform, model and direction',
    ),
    cost: meter.createCounter(
      'canopy_agent_cost_microusd_total',
      'microusd',
      'Agent cost in millionths of a US dollar, by platform and model',
    ),
  };
}

/** Counts a node run that just ended; outside an activity (nothing to export through) it does nothing. */
export function recordNodeRunMetrics(run: NodeRun): void {
  let meter: MetricMeter;
  try {
    meter = Context.current().metricMeter;
  } catch {
    return;
  }
  const { runs, duration, tokens, cost } = instrumentsOf(meter);
  runs.add(1, { kind: run.kind, outcome: run.outcome ?? 'none', failure_kind: run.failure_kind ?? 'none' });
  if (run.ended_at) duration.record((Date.parse(run.ended_at) - Date.parse(run.started_at)) / 1000, { kind: run.kind });
  if (!run.executed_platform) return;
  const agent = { platform: run.executed_platform, model: run.executed_model ?? 'default' };
  if (run.input_tokens) tokens.add(run.input_tokens, { ...agent, direction: 'input' });
  if (run.output_tokens) tokens.add(run.output_tokens, { ...agent, direction: 'output' });
  if (run.cost_usd) cost.add(Math.round(run.cost_usd * 1_000_000), agent);
}
