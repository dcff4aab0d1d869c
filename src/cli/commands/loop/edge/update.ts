// `canopy loop edge update`: change an edge's condition or type; its id stays.
import { Option, type Command } from 'commander';
import { EDGE_TYPES } from '../../../../domain/vocabulary';
import { action, emit } from '../../../output';

export function registerEdgeUpdate(edge: Command): void {
  edge
    .command('update <edge_id>')
    .description('Change an edge’s condition or type')
    .option(
      '--condition <condition>',
      'pass, fail, error (infrastructure failure of an agent or check), always, or a route label of a router source',
    )
    .addOption(new Option('--type <type>', 'edge type').choices(EDGE_TYPES))
    .option('--json', 'print JSON')
    .action(
      action(async (edgeId: string, options: { condition?: string; type?: string; json?: boolean }) => {
        const { withContext } = require('../../../../client/context') as typeof import('../../../../client/context');
        const { updateEdge } = require('../../../../client/graph-service') as typeof import('../../../../client/graph-service');
        const { describeEdge } = require('../../../text/describe') as typeof import('../../../text/describe');
        const updated = await withContext((ctx) => updateEdge(ctx, { edge_id: edgeId, condition: options.condition, type: options.type }));
        emit(updated, options, (e) => `Updated ${describeEdge(e)}.`);
      }),
    );
}
