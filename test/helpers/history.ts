// A loop with a long node-run history written straight into the store: run n started at second n/2 of a
// day, so every two runs share a started_at and their order rests on their ids.
import type { ClientContext } from '../../src/client/context';
import { createLoop } from '../../src/client/loops-service';
import { insertNodeRun } from '../../src/store/node-runs-repository';
import { scratchDir } from './loops';

/** The loop's id and its runs' ids, newest first. */
export async function loopWithHistory(ctx: ClientContext, count: number): Promise<{ loopId: string; newestFirst: string[] }> {
  const loop = await createLoop(ctx, { name: `history of ${count}`, workdir: scratchDir() });
  const written: { id: string; started_at: string }[] = [];
  await ctx.db.transaction().execute(async (tx) => {
    for (let round = 1; round <= count; round++) {
      const started_at = new Date(Date.UTC(2026, 0, 1) + Math.floor(round / 2) * 1000).toISOString();
      const run = await insertNodeRun(tx, { loop_id: loop.id, node_name: 'tests', kind: 'check', round, started_at, status: 'pass' });
      written.push({ id: run.id, started_at });
    }
  });
  const newestFirst = written
    .sort((a, b) => (a.started_at === b.started_at ? b.id.localeCompare(a.id) : b.started_at.localeCompare(a.started_at)))
    .map((run) => run.id);
  return { loopId: loop.id, newestFirst };
}
