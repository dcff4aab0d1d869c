// `canopy spec list`: specs in list order, filtered by loop, backlog, workdir and status.
import { Option, type Command } from 'commander';
import { SPEC_STATUSES } from '../../../domain/vocabulary';
import { action, emit, table } from '../../output';

interface ListOptions {
  loop?: string;
  backlog?: boolean;
  workdir?: string;
  status?: string;
  json?: boolean;
}

export function registerSpecList(spec: Command): void {
  spec
    .command('list')
    .description('List specs; filters combine')
    .option('--loop <loop_id>', 'only specs of this loop')
    .option('--backlog', 'only backlog specs')
    .option('--workdir <dir>', 'only specs tagged with this workdir')
    .addOption(new Option('--status <status>', 'only specs with this status').choices(SPEC_STATUSES))
    .option('--json', 'print JSON')
    .action(
      action(async (options: ListOptions) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { listSpecs } = require('../../../client/specs-service') as typeof import('../../../client/specs-service');
        const specs = await withContext((ctx) =>
          listSpecs(ctx, { loop_id: options.loop, backlog: options.backlog, workdir: options.workdir, status: options.status }),
        );
        emit(specs, options, (listed) =>
          listed.length
            ? table([['ID', 'STATUS', 'LOOP', 'NAME'], ...listed.map((s) => [s.id, s.status, s.loop_id ?? '(backlog)', s.name])])
            : 'No specs match.',
        );
      }),
    );
}
