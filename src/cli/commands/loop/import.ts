// `canopy loop import`: a new loop from an exported file; lists the agents that still need a platform.
import path from 'node:path';
import type { Command } from 'commander';
import type { ImportResult } from '../../../client/export-import-service';
import { action, emit } from '../../output';
import { readText } from './json-option';

export function registerLoopImport(loop: Command): void {
  loop
    .command('import <path>')
    .description('Create a new loop from an exported file (never updates an existing loop)')
    .option('--workdir <dir>', 'workdir of the new loop (default: the current directory)')
    .option('--name <name>', 'name of the new loop instead of the file’s (a taken name gets a numeric suffix)')
    .option('--json', 'print JSON')
    .action(
      action(async (file: string, options: { workdir?: string; name?: string; json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { importLoop } = require('../../../client/export-import-service') as typeof import('../../../client/export-import-service');
        const document = readText('<path>', file);
        const result = await withContext((ctx) =>
          importLoop(ctx, document, { workdir: path.resolve(options.workdir ?? '.'), name: options.name }),
        );
        emit(result, options, describeImport);
      }),
    );
}

function describeImport(result: ImportResult): string {
  const imported = `Imported loop '${result.name}' (${result.loop_id}).`;
  if (result.nodes_missing_platform.length === 0) return `${imported}\nEvery agent has a platform.`;
  return [
    imported,
    'These agents have no platform yet; give each one before running the loop:',
    ...result.nodes_missing_platform.map((node) => `  ${node}`),
  ].join('\n');
}
