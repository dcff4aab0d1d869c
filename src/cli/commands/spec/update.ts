// `canopy spec update`: change a spec's name, content, status, loop, workdir tag or budgets.
import { Option, type Command } from 'commander';
import { SPEC_STATUSES } from '../../../domain/vocabulary';
import { action, emit } from '../../output';
import { budgetOptions, readBudgets, readContent, readList, type BudgetOptions } from './content-option';

interface UpdateOptions extends BudgetOptions {
  name?: string;
  content?: string;
  file?: string;
  status?: string;
  loop?: string;
  backlog?: boolean;
  workdir?: string;
  json?: boolean;
}

export function registerSpecUpdate(spec: Command): void {
  const command = spec
    .command('update <spec_id>')
    .description('Change a spec; moving it to another loop or the backlog puts it at the end of that list')
    .option('--name <name>', 'new name')
    .option('--content <text>', 'new content')
    .option('--file <path>', 'read the new content from this file')
    .addOption(new Option('--status <status>', 'new status').choices(SPEC_STATUSES))
    .option('--loop <loop_id>', 'move the spec to this loop')
    .option('--backlog', 'move the spec to the backlog')
    .option('--workdir <dir>', 'new workdir tag');
  budgetOptions(command, true)
    .option('--json', 'print JSON')
    .action(
      action(async (specId: string, options: UpdateOptions) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { updateSpec } = require('../../../client/specs-service') as typeof import('../../../client/specs-service');
        const updated = await withContext((ctx) =>
          updateSpec(ctx, {
            spec_id: specId,
            name: options.name,
            content: readContent(options),
            status: options.status,
            loop_id: readList(options),
            workdir: options.workdir,
            ...readBudgets(options),
          }),
        );
        emit(
          updated,
          options,
          (s) => `Updated spec '${s.name}' (${s.id}), ${s.status}, ${s.loop_id ? `in loop ${s.loop_id}` : 'in the backlog'}.`,
        );
      }),
    );
}
