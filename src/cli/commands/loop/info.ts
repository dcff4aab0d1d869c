// `canopy loop info`: status, specs, the last run's failing node and reason, and the live workflow state.
import type { Command } from 'commander';
import { withContext } from '../../../client/context';
import { loopStatus, type LoopStatusReport } from '../../../client/loop-status-service';
import type { UsageTotals } from '../../../client/usage-service';
import { action, emit, terminalSafe } from '../../output';
import { pictureLines } from '../../watch/lines';

export function registerLoopInfo(loop: Command): void {
  loop
    .command('info <loop_id>')
    .description('Show a loop’s status, specs, last run (failing node and reason) and live state')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { json?: boolean }) => {
        const report = await withContext((ctx) => loopStatus(ctx, loopId));
        emit(report, options, describeStatus);
        for (const warning of report.warnings) process.stderr.write(`warning: ${terminalSafe(warning)}\n`);
      }),
    );
}

function usageText(usage: UsageTotals): string {
  return `${usage.agent_runs} runs, ${usage.input_tokens} tokens in, ${usage.output_tokens} out${usage.cost_usd ? `, $${usage.cost_usd.toFixed(4)}` : ''}`;
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
    if (run.failing_node)
      lines.push(`failed at ${run.failing_node}${run.failure_kind ? ` [${run.failure_kind}]` : ''}: ${run.reason ?? ''}`);
  }
  if (report.autorun_at) lines.push(`resumes by itself at ${report.autorun_at} (autorun)`);
  if (report.agent_usage.total.agent_runs) lines.push(`agents   ${usageText(report.agent_usage.total)}`);
  if (report.live_unavailable) lines.push(report.live_unavailable);
  if (report.live) {
    const rounds = Object.entries(report.live.rounds)
      .map(([head, round]) => `${head}:${round}`)
      .join(' ');
    lines.push(
      `now      spec ${report.live.specName ?? '-'}, node ${report.live.vertex ?? '-'}${rounds ? `, rounds ${rounds}` : ''} (${report.live.status})`,
    );
  }
  lines.push('graph', ...pictureLines(report.picture));
  lines.push('specs');
  for (const spec of report.specs) {
    const usage = report.agent_usage.per_spec.find((u) => u.spec_id === spec.id);
    lines.push(`  ${spec.status.padEnd(10)} ${spec.name} (${spec.id})${usage ? `  agents: ${usageText(usage)}` : ''}`);
  }
  if (report.queue) {
    lines.push(`queue ${report.queue.queue_id}`);
    for (const spec of report.queue.specs) lines.push(`  ${spec.status.padEnd(10)} ${spec.name} (${spec.id})`);
  }
  return lines.join('\n');
}
