// What `canopy loop info` prints for people: status, last run, budgets, schedule, live state, graph and specs.
import type { BudgetLine, LoopStatusReport } from '../../client/loop-status-service';
import type { LoopScheduleReport } from '../../client/schedule-service';
import type { UsageTotals } from '../../client/usage-service';
import { drainedText, timingText } from '../../domain/schedule';
import { pictureLines } from '../watch/lines';
import { notifyFailureText } from './notify-failure';

function usageText(usage: UsageTotals): string {
  return `${usage.agent_runs} runs, ${usage.input_tokens} tokens in, ${usage.output_tokens} out${usage.cost_usd ? `, $${usage.cost_usd.toFixed(4)}` : ''}`;
}

/** What the last run spent against each budget: `$0.42 of $5, 12000 of 200000 tokens (cost unknown for 2 agent runs)`. */
function budgetText(budget: BudgetLine): string {
  const { spent } = budget;
  const parts = [
    ...(budget.budget_usd === undefined ? [] : [`$${spent.cost_usd.toFixed(2)} of $${budget.budget_usd}`]),
    ...(budget.budget_tokens === undefined ? [] : [`${spent.tokens} of ${budget.budget_tokens} tokens`]),
  ];
  const unknown = spent.unpriced_runs ? ` (cost unknown for ${spent.unpriced_runs} agent run(s))` : '';
  return `${parts.join(', ')} this run${unknown}`;
}

function scheduleLines(schedule: LoopScheduleReport): string[] {
  const lines = [`schedule runs ${drainedText(schedule)} ${timingText(schedule)} (${schedule.schedule_id})`];
  if (schedule.unavailable) return [...lines, `         ${schedule.unavailable}`];
  if (schedule.next_firings.length) lines.push(`         next ${schedule.next_firings.slice(0, 3).join(', ')}`);
  const last = schedule.last_firing;
  if (last) lines.push(`         last firing ${last.at} ${last.outcome}${last.detail ? `: ${last.detail}` : ''}`);
  if (schedule.skipped_while_running)
    lines.push(`         ${schedule.skipped_while_running} firing(s) skipped while the run an earlier one started was going`);
  return lines;
}

export function describeStatus(report: LoopStatusReport): string {
  const lines = [
    `${report.name} (${report.loop_id})  ${report.status}${report.archived ? ' [archived]' : ''}`,
    `workdir  ${report.workdir}`,
    `host     ${report.host ?? '(any worker)'}`,
  ];
  const run = report.last_run;
  if (run) {
    lines.push(`last run ${run.status} (${run.workflow_id}, started ${run.started_at})`);
    if (run.temporal_ui_url) lines.push(`         ${run.temporal_ui_url}`);
    if (run.sandbox) lines.push(`sandbox  ${run.sandbox.id} ${run.sandbox.status}, branch ${run.sandbox.branch} at ${run.sandbox.path}`);
    if (run.failing_node)
      lines.push(`failed at ${run.failing_node}${run.failure_kind ? ` [${run.failure_kind}]` : ''}: ${run.reason ?? ''}`);
    if (run.hook_runs.length) lines.push(`hooks    ${run.hook_runs.map((hook) => `${hook.hook} ${hook.status}`).join(', ')}`);
  }
  if (report.autorun_at) lines.push(`resumes by itself at ${report.autorun_at} (autorun)`);
  if (report.schedule) lines.push(...scheduleLines(report.schedule));
  if (report.waiting_for_workdir) lines.push(`waiting  ${report.waiting_for_workdir}`);
  if (report.agent_usage.total.agent_runs) lines.push(`agents   ${usageText(report.agent_usage.total)}`);
  if (report.budget) lines.push(`budget   ${budgetText(report.budget)}`);
  if (report.live_unavailable) lines.push(report.live_unavailable);
  if (report.live) {
    const rounds = Object.entries(report.live.rounds)
      .map(([head, round]) => `${head}:${round}`)
      .join(' ');
    lines.push(
      `now      spec ${report.live.specName ?? '-'}, node ${report.live.vertex ?? '-'}${rounds ? `, rounds ${rounds}` : ''} (${report.live.status})`,
    );
  }
  if (report.live?.blockedReason) lines.push(`blocked  ${report.live.blockedReason}`);
  const approval = report.live?.approval;
  if (approval)
    lines.push(
      `waiting  approval ${approval.node}${approval.deadline ? ` (decides by itself at ${approval.deadline})` : ''}: ` +
        `canopy approve ${report.loop_id} | canopy reject ${report.loop_id} --comment "…"`,
    );
  const remarks = report.live?.queuedFeedback ?? 0;
  if (remarks > 0) lines.push(`feedback ${remarks === 1 ? 'a remark waits' : `${remarks} remarks wait`} for the next agent run`);
  if (report.notify_failure) lines.push(`notify   ${notifyFailureText(report.notify_failure)}`);
  lines.push('graph', ...pictureLines(report.picture));
  lines.push('specs');
  for (const spec of report.specs) {
    const usage = report.agent_usage.per_spec.find((u) => u.spec_id === spec.id);
    lines.push(`${specText(spec)}${usage ? `  agents: ${usageText(usage)}` : ''}`);
  }
  if (report.queue) {
    lines.push(`queue ${report.queue.queue_id}`);
    for (const spec of report.queue.specs) lines.push(specText(spec));
  }
  return lines.join('\n');
}

function specText(spec: LoopStatusReport['specs'][number]): string {
  const failures = spec.failure_count ? `  failed in ${spec.failure_count} run(s)` : '';
  const budgets = [spec.budget_usd !== null && `$${spec.budget_usd}`, spec.budget_tokens !== null && `${spec.budget_tokens} tokens`].filter(
    Boolean,
  );
  const budget = budgets.length ? `  budget ${budgets.join(', ')} over every run` : '';
  return `  ${spec.status.padEnd(10)} ${spec.name} (${spec.id})${failures}${budget}`;
}
