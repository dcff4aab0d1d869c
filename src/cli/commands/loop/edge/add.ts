// `canopy loop edge add`: an edge between two nodes or ensembles, by name.
import { Option, type Command } from 'commander';
import { EDGE_TYPES } from '../../../../domain/vocabulary';
import { action, emit } from '../../../output';

export function registerEdgeAdd(edge: Command): void {
  edge
    .command('add <loop_id>')
    .description('Add an edge; a flow edge that would close a cycle is refused (mark it --type loopback)')
    .requiredOption('--source <name>', 'node or ensemble the edge leaves')
    .requiredOption('--target <name>', 'node or ensemble the edge enters')
    .option(
      '--condition <condition>',
      'pass, fail, error (infrastructure failure of an agent or check), always, or a route label of a router source',
      'pass',
    )
    .addOption(new Option('--type <type>', 'edge type').choices(EDGE_TYPES).default('flow'))
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { source: string; target: string; condition: string; type: string; json?: boolean }) => {
        const { withContext } = require('../../../../client/context') as typeof import('../../../../client/context');
        const { addEdge } = require('../../../../client/graph-service') as typeof import('../../../../client/graph-service');
        const { describeEdge } = require('../../../text/describe') as typeof import('../../../text/describe');
        const added = await withContext((ctx) =>
          addEdge(ctx, {
            loop_id: loopId,
            source: options.source,
            target: options.target,
            condition: options.condition,
            type: options.type,
          }),
        );
        emit(added, options, (e) => `Added ${describeEdge(e)}.`);
      }),
    );
}
