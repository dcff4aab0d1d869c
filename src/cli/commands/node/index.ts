// `canopy node complete|block|mcp`: what a running agent uses to report on itself (CANOPY_RUN_TOKEN, to CANOPY_MCP_URL),
// each report kept in the run's directory (CANOPY_RUN_DIR) before it is sent, so a worker that is down loses none.
import { Command, Option } from 'commander';
import type { AgentReportResult, RunReport } from '../../../client/run-report-taker';
import { action, emit } from '../../output';

export function registerNode(program: Command): void {
  const node = program.command('node').description('Commands a running agent uses to report on its own node run');
  node
    .command('complete')
    .description('Report this run as passed or failed (reads CANOPY_RUN_TOKEN)')
    .addOption(new Option('--status <status>', 'pass or fail').choices(['pass', 'fail']).makeOptionMandatory())
    .option('--output <text>', 'what the run produced, kept as its reported output')
    .option('--json', 'print JSON')
    .action(
      action(async (options: { status: 'pass' | 'fail'; output?: string; json?: boolean }) => {
        const report = { tool: 'loop_complete_node', status: options.status, output: options.output ?? null } as const;
        const result = await reportFromAgent<{ status: string; node: string; run_id: string }>(report);
        emit(result, options, (r) => (r.delivered ? `Reported ${r.status} for ${r.node} (${r.run_id}).` : r.message));
      }),
    );
  node
    .command('block')
    .description('Ask a human for help: the loop stops as blocked after this node (reads CANOPY_RUN_TOKEN)')
    .requiredOption('--reason <text>', 'what the human must do')
    .option('--json', 'print JSON')
    .action(
      action(async (options: { reason: string; json?: boolean }) => {
        const result = await reportFromAgent<{ loop_id: string }>({ tool: 'loop_report_blocker', reason: options.reason });
        emit(result, options, (r) => (r.delivered ? `Loop ${r.loop_id} will stop as blocked after this node.` : r.message));
      }),
    );
  node
    .command('mcp')
    .description(
      "Serve the self-report tools over stdio, for the agent CLI canopy started: each report kept in the run's directory, then sent to the worker (reads CANOPY_RUN_TOKEN)",
    )
    .action(
      action(async () => {
        const { runCallbackFromEnv } = require('../../../client/run-callback') as typeof import('../../../client/run-callback');
        const { mcpStdioSdk, reportForwarderModule } = require('../../load-on-use') as typeof import('../../load-on-use');
        const server = reportForwarderModule().createReportForwarder(runCallbackFromEnv());
        // The stdio transport does not end on end-of-input, so the client closing stdin is the signal to stop.
        const clientGone = new Promise((resolve) => process.stdin.once('close', resolve));
        await server.connect(new (mcpStdioSdk().StdioServerTransport)());
        await clientGone;
        await server.close();
        // A report still offered to the worker in the background is kept in the run directory: the CLI that
        // made it has gone, and so does this server, rather than outlive it in the node's process group.
        process.exit(0);
      }),
    );
}

/** Takes the report as the agent's callback, saying on stderr when the worker does not answer at first. */
async function reportFromAgent<T extends object>(report: RunReport): Promise<AgentReportResult<T>> {
  const { agentReportResult, retryNotice, takeReport } =
    require('../../../client/run-report-taker') as typeof import('../../../client/run-report-taker');
  const { runCallbackFromEnv } = require('../../../client/run-callback') as typeof import('../../../client/run-callback');
  const callback = runCallbackFromEnv();
  return agentReportResult<T>(await takeReport(callback, report, (why) => console.error(retryNotice(callback, why))));
}
