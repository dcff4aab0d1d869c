// `canopy loop edge update`: change an edge's condition or type; its id stays.
import { Option, type Command } from 'commander';
import { EDGE_TYPES } from '../../../../domain/edge';
import { withContext } from '../../../../client/context';
import { updateEdge } from '../../../../client/graph-service';
import { action, emit } from '../../../output';
import { describeEdge } from '../describe';

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
        const updated = await withContext((ctx) => updateEdge(ctx, { edge_id: edgeId, condition: options.condition, type: options.type }));
        emit(updated, options, (e) => `Updated ${describeEdge(e)}.`);
      }),
    );
}
