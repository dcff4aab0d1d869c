// The runs `canopy tui` lists for a loop: its newest pages, each from where the one before ended, and
// whether older runs are left (the pane then says `m` lists them).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { RUNS_SHOWN, storeActions } from '../../src/cli/tui/store-actions';
import { loopWithHistory } from '../helpers/history';
import { useTestStore } from '../helpers/store';

const store = useTestStore();

it('lists the newest pages of a loop’s runs, in order, and says when older runs are left', async () => {
  const { loopId, newestFirst } = await loopWithHistory(store.ctx, RUNS_SHOWN * 2 + 5);
  const actions = storeActions(store.ctx, store.workdir());
  const ids = (details: { runs: { run_id: string }[] }) => details.runs.map((run) => run.run_id);
  const first = await actions.loopDetails(loopId, 1);
  assert.deepEqual([ids(first), first.olderRuns], [newestFirst.slice(0, RUNS_SHOWN), true]);
  const two = await actions.loopDetails(loopId, 2);
  assert.deepEqual([ids(two), two.olderRuns], [newestFirst.slice(0, RUNS_SHOWN * 2), true]);
  const all = await actions.loopDetails(loopId, 3);
  assert.deepEqual([ids(all), all.olderRuns], [newestFirst, false]);
});
