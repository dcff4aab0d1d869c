// `canopy loop runs|run-get`: node run history, newest first, and one run's full input and output.
import type { Command } from 'commander';
import type { AgentUsageLine, NodeRunPage, NodeRunSummary } from '../../../client/node-runs-service';
import type { NodeRun } from '../../../domain/node-run';
import { action, emit, table } from '../../output';
import { badOption } from './json-option';

export function registerLoopRunHistory(loop: Command): void {
  loop
    .command('runs <loop_id>')
    .description('List node runs, newest first, a page at a time (default 20, at most 200); --before pages on')
    .option('--node <node_id>', 'only this node’s runs')
    .option('--spec <spec_id>', 'only runs for this spec')
    .option('--limit <n>', 'how many runs (1-200)')
    .option('--before <run_id>', 'only runs older than this one: the next_cursor of the page before')
    .option('--json', 'print JSON: { runs, next_cursor }')
    .action(
      action(async (loopId: string, options: RunsOptions) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { listRunPage } = require('../../../client/node-runs-service') as typeof import('../../../client/node-runs-service');
        const limit = options.limit === undefined ? undefined : Number(options.limit);
        if (limit !== undefined && !Number.isInteger(limit)) throw badOption('--limit', 'must be a whole number from 1 to 200');
        const request = { loop_id: loopId, node_id: options.node, spec_id: options.spec, limit, before: options.before };
        emit(await withContext((ctx) => listRunPage(ctx, request)), options, (page) => describePage(loopId, options, page));
      }),
    );
  loop
    .command('run-get <run_id>')
    .description('Show one node run: its rendered input, stdout, stderr, report and engine markers')
    .option('--json', 'print JSON')
    .action(
      action(async (runId: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { getRun } = require('../../../client/node-runs-service') as typeof import('../../../client/node-runs-service');
        emit(await withContext((ctx) => getRun(ctx, runId)), options, (run) =>
          [
            `${run.node_name} round ${run.round}: ${run.outcome ?? run.status}${run.failure_kind ? ` [${run.failure_kind}]` : ''} (${run.id})`,
            `infra_attempt ${run.infra_attempt}${run.activity_attempt > 1 ? `, activity_attempt ${run.activity_attempt}` : ''}` +
              `${run.unreported ? ', unreported' : ''}; HEAD ${run.head_before ?? '-'} -> ${run.head_after ?? '-'}`,
            ...(run.executed_platform
              ? [
                  `agent ${run.executed_platform}${run.executed_model ? `/${run.executed_model}` : ''}: ` +
                    `${run.input_tokens ?? '-'} tokens in${run.cached_input_tokens ? ` (${run.cached_input_tokens} cached)` : ''}, ` +
                    `${run.output_tokens ?? '-'} out${run.cost_usd != null ? `, $${run.cost_usd.toFixed(4)}` : ''}`,
                ]
              : []),
            ...(run.session_id || run.cold_start_reason ? [sessionLine(run)] : []),
            ...(run.reason ? [`reason: ${run.reason}`] : []),
            ...(run.dirty_paths
              ? [`workdir after: ${run.dirty_paths.length ? `uncommitted ${run.dirty_paths.join(', ')}` : 'clean'}`]
              : []),
            '--- input',
            run.input,
            '--- stdout',
            run.stdout,
            '--- stderr',
            run.stderr,
            ...(run.reported_status ? ['--- reported', `${run.reported_status}: ${run.reported_output ?? ''}`] : []),
          ].join('\n'),
        );
      }),
    );
}

interface RunsOptions {
  node?: string;
  spec?: string;
  limit?: string;
  before?: string;
  json?: boolean;
}

/** Why the loop is blocked, when it is, then the page and the command that lists the next one. */
function describePage(loopId: string, options: RunsOptions, page: NodeRunPage): string {
  const blocked = page.blocked ? `blocked  ${page.blocked}\n` : '';
  return blocked + describeRunsPage(loopId, options, page);
}

function describeRunsPage(loopId: string, options: RunsOptions, page: NodeRunPage): string {
  if (page.runs.length === 0) return options.before ? 'No older node runs.' : 'No node runs yet.';
  if (page.next_cursor === null) return describeRuns(page.runs);
  const kept = [
    options.node && `--node ${options.node}`,
    options.spec && `--spec ${options.spec}`,
    options.limit && `--limit ${options.limit}`,
  ];
  const next = ['canopy loop runs', loopId, ...kept.filter(Boolean), `--before ${page.next_cursor}`].join(' ');
  return `${describeRuns(page.runs)}\nOlder runs: ${next}`;
}

/** How an agent run began, beside its platform: continuing a session, or cold although it was to resume. */
function sessionStart(agent: Pick<AgentUsageLine, 'resumed' | 'cold_start_reason'>): string {
  if (agent.resumed) return ', resumed';
  return agent.cold_start_reason ? ', cold' : '';
}

function sessionLine(run: Pick<NodeRun, 'session_id' | 'resumed' | 'cold_start_reason'>): string {
  const session = `session ${run.session_id ?? '-'}`;
  if (run.resumed) return `${session}, resumed`;
  return run.cold_start_reason ? `${session}, started cold: ${run.cold_start_reason}` : session;
}

function describeRuns(runs: NodeRunSummary[]): string {
  return table([
    ['RUN', 'NODE', 'ROUND', 'OUTCOME', 'STARTED', 'AGENT', 'TOKENS IN/OUT', 'COST', 'DETAIL'],
    ...runs.map((r) => [
      r.run_id,
      // As the Temporal UI's activity summaries name the runs after infrastructure failures.
      r.infra_attempt > 1 ? `${r.node}, infra attempt ${r.infra_attempt}` : r.node,
      String(r.round),
      r.outcome ?? r.status,
      r.started_at,
      r.agent ? `${r.agent.platform}${r.agent.model ? `/${r.agent.model}` : ''}${sessionStart(r.agent)}` : '',
      r.agent ? `${r.agent.input_tokens ?? '-'}/${r.agent.output_tokens ?? '-'}` : '',
      r.agent?.cost_usd != null ? `$${r.agent.cost_usd.toFixed(4)}` : '',
      (r.reason ?? r.excerpt).split('\n')[0].slice(0, 80),
    ]),
  ]);
}
