// The rule for changing released workflow code, proven on a copy of it: a change behind a new patch
// replays the baseline's histories and the histories recorded with the patch, while the same change
// unguarded breaks the baseline's, and the unpatched code cannot replay a run recorded with the patch.
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { loopWorkflowId, REPLAYS_FROM } from '../../src/contract';
import { PROJECT_ROOT } from '../../src/project';
import { workflowSource } from '../../src/workflow-bundle';
import { engineHarness, type EngineHarness } from '../helpers/engine';
import { chain, loopWithSpecs, runToEnd, scratchDir } from '../helpers/loops';
import { closedRuns } from '../helpers/workflow-runs';
import { readHistory, recordedHistories } from './histories';

const PATCH = 'procedure-test';
/** Where the change goes in the compiled loop-run.js: right after the run is begun. */
const CHANGE_AT = 'const { loopRunId } = begun;';
/** The deliberate change: one more activity, a read of the graph, after the run is begun. */
const CALL = "await (0, activity_options_1.claims)('procedure: read the graph').loadTopology({ loopId });";

type Bundle = { workflowBundle: { code: string } };
type Histories = { workflowId: string; history: temporal.api.history.v1.IHistory }[];

/** The compiled workflow code with the change made, bundled; the copy lives in dist/ so it resolves the project's packages. */
async function changedWorkflows(name: string, guarded: boolean): Promise<Bundle> {
  const root = path.join(PROJECT_ROOT, 'dist', 'patch-procedure', name);
  rmSync(root, { recursive: true, force: true });
  cpSync(path.join(PROJECT_ROOT, 'dist', 'src'), path.join(root, 'src'), { recursive: true });
  const file = path.join(root, 'src', 'workflows', 'loop-run.js');
  const code = readFileSync(file, 'utf8');
  assert.ok(code.includes(CHANGE_AT), `loop-run.js no longer has \`${CHANGE_AT}\`: make the procedure's change at another line`);
  const change = guarded ? `if ((0, workflow_1.patched)('${PATCH}')) ${CALL}` : CALL;
  writeFileSync(file, code.replace(CHANGE_AT, `${CHANGE_AT}\n    ${change}`));
  const bundled = await bundleWorkflowCode({ workflowsPath: path.join(root, 'src', 'workflows'), logger: silent });
  return { workflowBundle: { code: bundled.code } };
}

/** Each history that does not replay on `workflows`, with the SDK's reason. */
async function replayFailures(workflows: Bundle | ReturnType<typeof workflowSource>, histories: Histories): Promise<string[]> {
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories(workflows, histories)) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  return failures;
}

describe('a workflow change behind a new patch', () => {
  let h: EngineHarness;
  let guarded: Bundle;
  let unguarded: Bundle;
  const baseline: Histories = recordedHistories()
    .filter((file) => file.startsWith(`${REPLAYS_FROM}/`))
    .map((file) => ({ workflowId: file, history: readHistory(file) }));

  before(async () => {
    h = await engineHarness();
    guarded = await changedWorkflows('guarded', true);
    unguarded = await changedWorkflows('unguarded', false);
  });
  after(async () => {
    await h.close();
    rmSync(path.join(PROJECT_ROOT, 'dist', 'patch-procedure'), { recursive: true, force: true });
  });

  it('breaks the baseline histories when it is not guarded', async () => {
    assert.ok(baseline.length > 0, `no histories recorded in the ${REPLAYS_FROM} era`);
    // One history is enough to show it (the SDK logs each failing one).
    const failures = await replayFailures(
      unguarded,
      baseline.filter((h) => h.workflowId.endsWith('/chain.json')),
    );
    assert.ok(failures.length > 0, 'the unguarded change replayed every baseline history: it changes nothing the histories see');
  });

  it('replays every baseline history behind patched()', async () => {
    assert.deepEqual(await replayFailures(guarded, baseline), []);
  });

  it('replays the runs recorded with the patch, which the unpatched code cannot', async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), chain(['one', 'echo one']), [{ name: 'spec' }]);
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId), guarded);
    assert.equal(result.status, 'completed');
    const client = await h.ctx.temporal();
    const [run] = await closedRuns(client, loopWorkflowId(loopId), 1);
    const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
    const markers = (history.events ?? []).filter((event) => patchIdOf(event) === PATCH);
    assert.equal(markers.length, 1, 'the run recorded the patch marker');
    const recorded = [{ workflowId: 'recorded with the patch', history }];
    assert.deepEqual(await replayFailures(guarded, recorded), []);
    assert.equal((await replayFailures(workflowSource(), recorded)).length, 1, 'the unpatched code replayed a run that took the patch');
  });
});

/** The id of the patch a marker records (its `patch-data` payload, which Temporal's core writes as plain JSON), else null. */
function patchIdOf(event: temporal.api.history.v1.IHistoryEvent): string | null {
  const marker = event.markerRecordedEventAttributes;
  const data = marker?.markerName === 'core_patch' ? marker.details?.['patch-data']?.payloads?.[0]?.data : null;
  return data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id : null;
}

const silent = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: console.error,
};
