// Continue-as-new on a dev server of its own that suggests it after a few events, as a long run
// sees it: between specs, and at the start of a fix loop's round inside one spec.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loopStatus } from '../../src/client/loop-status-service';
import { continueLoop, startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { loopWorkflowId, type ResumePoint } from '../../src/contract';
import { startTestServer, SUGGEST_CONTINUE_AS_NEW_EARLY, type TestServer } from '../helpers/dev-server';
import { engineHarness, type EngineHarness } from '../helpers/engine';
import { tempGitRepo } from '../helpers/git';
import {
  chain,
  checkedFix,
  FAILS_UNTIL_FIXED,
  fixLoop,
  loopWithSpecs,
  runsOf,
  runToEnd,
  scratchDir,
  untilLoopStatus,
} from '../helpers/loops';
import { closedRuns } from '../helpers/workflow-runs';
import { listSpecs } from '../../src/store/specs-repository';

describe('continue-as-new', () => {
  let server: TestServer | undefined;
  let h: EngineHarness;
  before(async () => {
    server = await startTestServer([SUGGEST_CONTINUE_AS_NEW_EARLY]);
    h = await engineHarness({ TEMPORAL_ADDRESS: server.address });
  });
  after(async () => {
    await h?.close();
    await server?.stop();
  });

  /** The input each run of the loop's workflow handed to the next, oldest first. */
  async function handedOn(loopId: string, expectedRuns: number) {
    const client = await h.ctx.temporal();
    const runs = await closedRuns(client, loopWorkflowId(loopId), expectedRuns);
    assert.deepEqual(
      runs.map((run) => run.status.name),
      [...Array<string>(expectedRuns - 1).fill('CONTINUED_AS_NEW'), 'COMPLETED'],
    );
    return Promise.all(
      runs.slice(0, -1).map(async (run) => {
        const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
        const attributes = history.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes!;
        const [input] = await Promise.all(
          attributes.input!.payloads!.map((p) => client.options.loadedDataConverter.payloadConverter.fromPayload(p)),
        );
        return input as { resume: ResumePoint | null; completedSpecIds: string[] };
      }),
    );
  }

  it('continues as new between specs, carrying the completed ones', async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), chain(['only', 'true']), [{ name: 'first' }, { name: 'second' }]);
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed');
    const specs = await listSpecs(h.ctx.db, { loopId });
    assert.deepEqual(
      result.completedSpecIds,
      specs.map((s) => s.id),
    );
    // The second run finishes the last spec knowing none is left, and completes without handing on.
    const inputs = await handedOn(loopId, 2);
    assert.deepEqual(
      inputs.map((input) => [input.resume, input.completedSpecIds.length]),
      [[null, 1]],
    );
  });

  it("starts a fix loop's next round in a fresh run that resumes the spec at the loop's head", async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), fixLoop('test -f fixed.txt'), [{ name: 'spec' }]);
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed', result.reason ?? '');
    const runs = await runsOf(h.ctx, loopId);
    assert.deepEqual(
      runs.map((r) => `${r.node_name}:${r.round}:${r.outcome}`),
      ['implementer:1:pass', 'tests:1:fail', 'fixer:1:pass', 'implementer:2:pass', 'tests:2:pass'],
    );
    const [inRound] = await handedOn(loopId, 2);
    assert.equal(inRound.resume?.vertex, 'implementer');
    assert.deepEqual(inRound.resume?.rounds, { implementer: 2 });
    assert.equal(inRound.resume?.previousRunId, runs[2].id, "round 2 follows the fixer's run");
  });

  it("carries a watched fix loop's no-progress count into each fresh run, so that rounds alike across runs block it", async () => {
    const workdir = tempGitRepo();
    const shape = checkedFix('@print nothing to change', FAILS_UNTIL_FIXED, { max_stalled_rounds: 3, max_iterations: 10 });
    const loopId = await loopWithSpecs(h.ctx, workdir, shape, [{ name: 'spec' }]);
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      await untilLoopStatus(h.ctx, loopId, 'blocked');
      assert.match((await loopStatus(h.ctx, loopId)).live?.blockedReason ?? '', /^no_progress: 3 rounds in a row /);
      writeFileSync(path.join(workdir, 'fixed.txt'), 'done\n');
      await continueLoop(h.ctx, loopId, 'retry');
      assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    });
    // Each round began in a fresh run; the continue that lifted the block started the count again.
    const inputs = await handedOn(loopId, 4);
    assert.deepEqual(
      inputs.map((input) => input.resume?.stalls?.fixer?.rounds),
      [1, 2, undefined],
    );
  });
});
