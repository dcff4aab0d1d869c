// `canopy node complete|block`: what a running agent calls to report on itself (CANOPY_RUN_TOKEN, to CANOPY_MCP_URL).
import { Command, Option } from 'commander';
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
        const { callRunTool } = require('./run-callback') as typeof import('./run-callback');
        const result = (await callRunTool('loop_complete_node', { status: options.status, output: options.output })) as {
          status: string;
          node: string;
          run_id: string;
        };
        emit(result, options, (r) => `Reported ${r.status} for ${r.node} (${r.run_id}).`);
      }),
    );
  node
    .command('block')
    .description('Ask a human for help: the loop stops as blocked after this node (reads CANOPY_RUN_TOKEN)')
    .requiredOption('--reason <text>', 'what the human must do')
    .option('--json', 'print JSON')
    .action(
      action(async (options: { reason: string; json?: boolean }) => {
        const { callRunTool } = require('./run-callback') as typeof import('./run-callback');
        const result = (await callRunTool('loop_report_blocker', { reason: options.reason })) as { loop_id: string };
        emit(result, options, (r) => `Loop ${r.loop_id} will stop as blocked after this node.`);
      }),
    );
}
