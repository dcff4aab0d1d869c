// `canopy loop export`: the loop's design as an export file of the newest format_version, to stdout or --output.
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { action } from '../../output';

export function registerLoopExport(loop: Command): void {
  loop
    .command('export <loop_id>')
    .description('Write the loop’s design (nodes, edges, ensembles; no ids, workdir, specs or state) as JSON')
    .option('--output <path>', 'write to this file instead of stdout')
    .option('--with-models', 'keep platform and model on agents (only to restore your own loop on your own machine)')
    .action(
      action(async (loopId: string, options: { output?: string; withModels?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { exportLoop } = require('../../../client/export-import-service') as typeof import('../../../client/export-import-service');
        const document = await withContext((ctx) => exportLoop(ctx, loopId, { with_models: options.withModels ?? false }));
        const text = JSON.stringify(document, null, 2) + '\n';
        if (options.output === undefined) {
          process.stdout.write(text);
        } else {
          writeFileSync(options.output, text);
          process.stderr.write(`Wrote ${options.output}\n`);
        }
      }),
    );
}
