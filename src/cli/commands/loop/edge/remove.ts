// `canopy loop edge remove`: remove one edge (an ensemble's entry or exit wiring included).
import type { Command } from 'commander';
import { action, emit } from '../../../output';

export function registerEdgeRemove(edge: Command): void {
  edge
    .command('remove <edge_id>')
    .description('Remove an edge')
    .option('--json', 'print JSON')
    .action(
      action(async (edgeId: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../../client/context') as typeof import('../../../../client/context');
        const { removeEdge } = require('../../../../client/graph-service') as typeof import('../../../../client/graph-service');
        const { describeEdge } = require('../../../text/describe') as typeof import('../../../text/describe');
        const removed = await withContext((ctx) => removeEdge(ctx, { edge_id: edgeId }));
        emit(removed, options, (e) => `Removed ${describeEdge(e)}.`);
      }),
    );
}
