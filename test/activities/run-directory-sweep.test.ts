// What a worker removes from its home as it starts: the directories of node runs that ended, never a running
// one's, and the agent homes of loops the store no longer has, never those of a loop it has.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import { sweepRunDirectories } from '../../src/activities/run-directory-sweep';
import { agentHomePath, openRunDirectory, runDirectoryPath } from '../../src/process/run-directory';
import { insertNodeRun } from '../../src/store/node-runs-repository';
import { insertSpec } from '../../src/store/specs-repository';
import { insertTestLoop } from '../helpers/store-dialects';
import { useTestStore } from '../helpers/store';

describe('the sweep of run directories and agent homes at a worker’s start', () => {
  const store = useTestStore();

  it('removes what ended runs and deleted loops left, and keeps what running runs and kept loops use', async () => {
    const { db } = store.ctx;
    const loop = await insertTestLoop(db);
    const spec = await insertSpec(db, { name: 's', content: '', loop_id: loop.id, workdir: null });
    const run = (status: 'running' | 'pass') =>
      insertNodeRun(db, { loop_id: loop.id, spec_id: spec.id, node_name: 'implement', kind: 'agent', round: 1, status });
    const [ended, running] = [await run('pass'), await run('running')];
    for (const { id } of [ended, running]) openRunDirectory(store.home, id);
    const kept = agentHomePath(store.home, loop.id, 'implement');
    const left = agentHomePath(store.home, 'loop_deletedloop01', 'implement');
    for (const home of [kept, left]) mkdirSync(home, { recursive: true });

    assert.deepEqual(await sweepRunDirectories(db, store.home), []);
    assert.equal(existsSync(runDirectoryPath(store.home, ended.id)), false, "the ended run's directory is removed");
    assert.equal(existsSync(runDirectoryPath(store.home, running.id)), true, "the running run's is kept");
    assert.equal(existsSync(left), false, 'the agent home of a deleted loop is removed');
    assert.equal(existsSync(kept), true, "the store's loop keeps its own");
  });

  it('finds nothing to do in a home no agent ever ran in', async () => {
    assert.deepEqual(await sweepRunDirectories(store.ctx.db, store.home), []);
  });
});
