// The overview of every loop: each loop's newest node run and its agents' spend, read with as many
// store queries for ten loops as for one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import type { ClientContext } from '../../src/client/context';
import { createLoop } from '../../src/client/loops-service';
import { loopsOverview } from '../../src/client/overview-service';
import { insertNodeRun } from '../../src/store/node-runs-repository';
import { useTestStore } from '../helpers/store';

const store = useTestStore();

/** The context with a count of the queries sent through it. */
function countingQueries(ctx: ClientContext): { ctx: ClientContext; queries: () => number } {
  let queries = 0;
  const counter: KyselyPlugin = {
    transformQuery: (args) => {
      queries++;
      return args.node;
    },
    transformResult: (args) => Promise.resolve(args.result),
  };
  return { ctx: { ...ctx, db: ctx.db.withPlugin(counter) }, queries: () => queries };
}

async function loopWithRuns(index: number): Promise<string> {
  const loop = await createLoop(store.ctx, { name: `loop-${index}`, workdir: store.workdir(`project-${index}`) });
  const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;
  const run = { loop_id: loop.id, kind: 'agent', round: 1, status: 'pass', executed_platform: 'claude' } as const;
  await insertNodeRun(store.ctx.db, {
    ...run,
    node_name: 'implement',
    started_at: at(1),
    ended_at: at(2),
    input_tokens: 10,
    cost_usd: 0.5,
  });
  await insertNodeRun(store.ctx.db, { ...run, node_name: 'review', started_at: at(3), ended_at: at(4), output_tokens: 5, cost_usd: 0.25 });
  await insertNodeRun(store.ctx.db, { loop_id: loop.id, kind: 'check', node_name: 'tests', round: 2, started_at: at(5) });
  return loop.id;
}

describe('the overview', () => {
  it("reads each loop's newest node run and spend with as many queries for ten loops as for one", async () => {
    const first = await loopWithRuns(0);
    const one = countingQueries(store.ctx);
    const overview = await loopsOverview(one.ctx);
    assert.deepEqual(
      overview.loops.map((loop) => [loop.loop_id, loop.latest_node, loop.spend]),
      [[first, { node: 'tests', round: 2, status: 'running' }, { agent_runs: 2, input_tokens: 10, output_tokens: 5, cost_usd: 0.75 }]],
    );
    assert.equal(overview.loops[0].last_activity > '2026-01-01T00:00:05.000Z', true, "the loop's own change is newer than its runs");

    for (let index = 1; index < 10; index++) await loopWithRuns(index);
    await createLoop(store.ctx, { name: 'idle', workdir: store.workdir('idle') });
    const eleven = countingQueries(store.ctx);
    const overviews = (await loopsOverview(eleven.ctx)).loops;
    assert.equal(overviews.length, 11);
    assert.equal(eleven.queries(), one.queries(), `${eleven.queries()} queries for 11 loops, ${one.queries()} for one`);
    const idle = overviews.find((loop) => loop.name === 'idle')!;
    assert.equal(idle.latest_node, null);
    assert.deepEqual(idle.spend, { agent_runs: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 });
  });
});
