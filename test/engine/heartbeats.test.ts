// An execution heartbeats from its start to its end, not only while its process runs: the work
// around the process may outlast the heartbeat timeout (3 s in the tests) without failing the node.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loopWorkflowId } from '../../src/contract';
import { useEngineHarness } from '../helpers/engine';
import { git, tempGitRepo } from '../helpers/git';
import { chain, loopWithSpecs, runToEnd } from '../helpers/loops';

/** A repository whose `git status` takes about 6 s: git asks a file-system monitor that answers after 3 s (twice). */
function slowStatusRepo(): string {
  const repo = tempGitRepo();
  const hook = path.join(mkdtempSync(path.join(os.tmpdir(), 'canopy-fsmonitor-')), 'fsmonitor');
  writeFileSync(hook, '#!/bin/sh\nsleep 3\nexit 1\n');
  chmodSync(hook, 0o755);
  git(repo, 'config', 'core.fsmonitor', hook);
  return repo;
}

describe('heartbeats', () => {
  const h = useEngineHarness();

  it('keeps a node alive while it waits for the scan of a slow workdir, so no attempt times out', { timeout: 120_000 }, async () => {
    const loopId = await loopWithSpecs(h.ctx, slowStatusRepo(), chain(['first', 'true'], ['second', 'true']), [{ name: 'spec' }]);
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed', result.reason ?? '');
    const history = await (await h.ctx.temporal()).workflow.getHandle(loopWorkflowId(loopId)).fetchHistory();
    const timedOut = (history.events ?? []).filter((event) => event.activityTaskTimedOutEventAttributes);
    const scheduled = (history.events ?? []).filter(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runNode',
    );
    assert.equal(scheduled.length, 2, 'both nodes ran in this workflow');
    assert.deepEqual(
      timedOut.map((event) => event.activityTaskTimedOutEventAttributes?.failure?.message),
      [],
    );
  });
});
