// A loop's whole node-run history, 10,000 runs, paged through to its first run by `canopy loop runs --before`
// and by loop_node_runs_list's cursor, newest first, each run once; runs that started in the same millisecond
// keep their order by id. A cursor from another loop is refused, naming the field.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLoop } from '../../src/client/loops-service';
import { listRunPage } from '../../src/client/node-runs-service';
import { childEnv, useEngineHarness } from '../helpers/engine';
import { callOk, callRefused, useMcpSession } from '../helpers/mcp-client';
import { canopySync } from '../helpers/processes';
import { loopWithHistory } from '../helpers/history';
import { scratchDir } from '../helpers/loops';
import { assertRefused } from '../helpers/store';

const RUNS = 10_000;
const PAGE = 200;

interface Page {
  runs: { run_id: string; round: number }[];
  next_cursor: string | null;
}

describe(
  'paging through node runs',
  { skip: !process.env.CANOPY_TEST_TEMPORAL_ADDRESS && 'needs the dev server `npm test` starts' },
  () => {
    const h = useEngineHarness();
    const session = useMcpSession(h);

    async function pageThrough(next: (cursor: string | null) => Promise<Page>): Promise<string[]> {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await next(cursor);
        assert.ok(page.runs.length === PAGE || page.next_cursor === null, 'only the last page is short');
        seen.push(...page.runs.map((run) => run.run_id));
        cursor = page.next_cursor;
      } while (cursor !== null);
      return seen;
    }

    it('reaches the first of 10,000 runs through the CLI and through MCP, 200 at a time', { timeout: 300_000 }, async () => {
      const { loopId, newestFirst } = await loopWithHistory(h.ctx, RUNS);
      const env = childEnv(h.config);
      const byCli = await pageThrough((cursor) => {
        const args = ['loop', 'runs', loopId, '--limit', String(PAGE), '--json', ...(cursor ? ['--before', cursor] : [])];
        const result = canopySync(env, args);
        assert.equal(result.status, 0, result.stderr);
        return Promise.resolve(JSON.parse(result.stdout) as Page);
      });
      assert.deepEqual(byCli, newestFirst, 'every run once, newest first');

      const byMcp = await pageThrough(
        async (cursor) =>
          await callOk(session.client, 'loop_node_runs_list', {
            loop_id: loopId,
            limit: PAGE,
            ...(cursor ? { before: cursor } : {}),
          }),
      );
      assert.deepEqual(byMcp, newestFirst);

      const text = canopySync(env, ['loop', 'runs', loopId, '--limit', '2']).stdout;
      assert.match(text, new RegExp(`\\nOlder runs: canopy loop runs ${loopId} --limit 2 --before ${newestFirst[1]}\\n$`));
      assert.equal(canopySync(env, ['loop', 'runs', loopId, '--before', newestFirst.at(-1)!]).stdout.trim(), 'No older node runs.');
    });

    it('refuses a cursor that is not a run of the loop, naming before', async () => {
      const { loopId } = await loopWithHistory(h.ctx, 3);
      const other = await createLoop(h.ctx, { name: 'other', workdir: scratchDir() });
      const [foreign] = (await listRunPage(h.ctx, { loop_id: loopId, limit: 1 })).runs;
      await assertRefused(listRunPage(h.ctx, { loop_id: other.id, before: foreign.run_id }), {
        code: 'invalid_input',
        message: /^before: nrun_\w+ is not a node run of loop loop_\w+; give the next_cursor of the page before\.$/,
      });
      assert.match(
        await callRefused(session.client, 'loop_node_runs_list', { loop_id: other.id, before: foreign.run_id }),
        /before: .* is not a node run of loop/,
      );
      const cli = canopySync(childEnv(h.config), ['loop', 'runs', other.id, '--before', 'nrun_missing']);
      assert.equal(cli.status, 2);
      assert.match(cli.stderr, /before: nrun_missing is not a node run of loop/);
    });
  },
);
