// `canopy loop edge remove`: remove one edge (an ensemble's entry or exit wiring included).
import type { Command } from 'commander';
import { withContext } from '../../../../client/context';
import { removeEdge } from '../../../../client/graph-service';
import { action, emit } from '../../../output';
import { describeEdge } from '../describe';

export function registerEdgeRemove(edge: Command): void {
  edge
    .command('remove <edge_id>')
    .description('Remove an edge')
    .option('--json', 'print JSON')
    .action(
      action(async (edgeId: string, options: { json?: boolean }) => {
        const removed = await withContext((ctx) => removeEdge(ctx, { edge_id: edgeId }));
        emit(removed, options, (e) => `Removed ${describeEdge(e)}.`);
      }),
    );
}
