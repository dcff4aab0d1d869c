// `canopy spec create`: a spec bound to a loop or in the backlog.
import type { Command } from 'commander';
import { action, emit } from '../../output';
import { badOption } from '../loop/json-option';
import { budgetOptions, readBudgets, readContent, readList, type BudgetOptions } from './content-option';

interface CreateOptions extends BudgetOptions {
  loop?: string;
  backlog?: boolean;
  name: string;
  content?: string;
  file?: string;
  workdir?: string;
  json?: boolean;
}

export function registerSpecCreate(spec: Command): void {
  const command = spec
    .command('create')
    .description('Create a spec at the end of a loop’s list (--loop) or of the backlog (--backlog)')
    .option('--loop <loop_id>', 'bind the spec to this loop')
    .option('--backlog', 'keep the spec in the backlog, bound to no loop')
    .requiredOption('--name <name>', 'spec name')
    .option('--content <text>', 'what to do')
    .option('--file <path>', 'read what to do from this file')
    .option('--workdir <dir>', 'tag the spec with a workdir, for filtering the backlog');
  budgetOptions(command, false)
    .option('--json', 'print JSON')
    .action(
      action(async (options: CreateOptions) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { createSpec } = require('../../../client/specs-service') as typeof import('../../../client/specs-service');
        const loopId = readList(options);
        if (loopId === undefined) throw badOption('--loop', 'give --loop <loop_id> or --backlog');
        const content = readContent(options);
        if (content === undefined) throw badOption('--content', 'give --content <text> or --file <path>');
        const created = await withContext((ctx) =>
          createSpec(ctx, { loop_id: loopId, name: options.name, content, workdir: options.workdir ?? null, ...readBudgets(options) }),
        );
        emit(created, options, (s) => `Created spec '${s.name}' (${s.id}) ${s.loop_id ? `in loop ${s.loop_id}` : 'in the backlog'}.`);
      }),
    );
}
