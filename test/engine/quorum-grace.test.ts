// quorum_grace_minutes on a real dev server: once min_pass members passed, the others get the grace
// period, then the ones still running are cancelled, their process groups killed, and recorded as quorum_met.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isGroupAlive } from '../../src/process/process-group';
import { startLoopRun, stopLoop, waitForLoopRun } from '../../src/client/runs-service';
import type { NodeRun } from '../../src/domain/node-run';
import { useEngineHarness, withConfigChanges } from '../helpers/engine';
import { check, loopWithSpecs, runsOf, scratchDir } from '../helpers/loops';
import { waitUntil } from '../helpers/wait';

const QUICK = { platform: 'fake', model: 'quick', prompt_override: '@print looks good' };
const SLOW = { platform: 'fake', model: 'slow', prompt_override: '@sleep 60\n@print too late' };
/** Far under the slow member's 60 s, so only a cut can explain it, and generous for a loaded machine. */
const WELL_BEFORE_THE_SLOW_MEMBER_MS = 40_000;

describe('quorum grace', () => {
  const h = useEngineHarness();

  /** Runs the loop to its end, with the process group of `member` taken while it runs. */
  async function runWatching(loopId: string, member: string) {
    return h.withWorker(async () => {
      const started = Date.now();
      await startLoopRun(h.ctx, loopId);
      const running = await waitUntil(`${member} to start its process`, async () =>
        (await runsOf(h.ctx, loopId)).find((r) => r.node_name === member && r.pgid !== null),
      );
      const result = await waitForLoopRun(h.ctx, loopId);
      return { result, elapsedMs: Date.now() - started, pgid: running.pgid! };
    });
  }

  const runNamed = (runs: NodeRun[], name: string) => runs.find((r) => r.node_name === name) ?? assert.fail(`no run of ${name}`);

  it('cuts a member still running when the grace after the quorum ends, killing its process, and joins without waiting for it', async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        nodes: [check('after', 2, 'printf "%s" "{{previous_output}}" | grep -c "^## "')],
        ensembles: [
          {
            name: 'reviewers',
            prompt_template: 'unused',
            members: [QUICK, { ...QUICK, model: 'quick-too' }, SLOW],
            min_pass: 2,
            quorum_grace_minutes: 0.05,
            timeout_minutes: 2,
            on_pass_to: 'after',
          },
        ],
      },
      [{ name: 'review' }],
    );
    const { result, elapsedMs, pgid } = await runWatching(loopId, 'reviewers/member-3');
    assert.equal(result.status, 'completed', result.reason ?? '');
    assert.ok(elapsedMs < WELL_BEFORE_THE_SLOW_MEMBER_MS, `the loop took ${elapsedMs} ms`);
    assert.ok(!isGroupAlive(pgid), 'the cut member’s process group was killed');

    const runs = await runsOf(h.ctx, loopId);
    const [first, second, slow] = [1, 2, 3].map((n) => runNamed(runs, `reviewers/member-${n}`));
    assert.deepEqual([first.outcome, second.outcome], ['pass', 'pass']);
    assert.deepEqual([slow.status, slow.outcome, slow.failure_kind], ['fail', 'fail', 'quorum_met']);
    assert.match(
      slow.reason!,
      /^Cut short: quorum was met at \S+ \(min_pass 2\) and quorum_grace_minutes \(0\.05\) passed while it still ran/,
    );
    assert.equal(slow.pgid, null);
    const quorumMet = Math.max(Date.parse(first.ended_at!), Date.parse(second.ended_at!));
    assert.ok(Date.parse(slow.ended_at!) - quorumMet >= 2_900, 'the slow member had the whole grace period');

    const quorum = runNamed(runs, 'reviewers/quorum');
    assert.equal(quorum.outcome, 'pass');
    assert.equal(quorum.reason, '2 of 3 members passed (min_pass 2); 1 cut short once the quorum was met.');
    assert.match(
      quorum.stdout,
      /^Quorum met at \d{4}-\d\d-\d\dT\S+Z \(min_pass 2\); quorum_grace_minutes 0\.05; cut short: fake\/slow \(reviewers\/member-3\)\.\n/,
    );
    const headings = quorum.stdout.split('\n').filter((line) => line.startsWith('## '));
    assert.deepEqual(headings, ['## fake/quick [pass]', '## fake/quick-too [pass]', '## fake/slow [fail]']);
    assert.equal(runNamed(runs, 'after').stdout.trim(), '3');
  });

  it('with quorum_grace_minutes 0 cuts the running members at once and starts none of those still waiting', async () => {
    await withConfigChanges(h.config.home, { ensemble_concurrency: 2 }, async () => {
      const loopId = await loopWithSpecs(
        h.ctx,
        scratchDir(),
        {
          nodes: [],
          ensembles: [
            {
              name: 'voters',
              prompt_template: 'unused',
              // Two lanes: member-3 starts when member-1 ends; the quorum is met when member-2 passes, before member-4's turn.
              members: [QUICK, { ...QUICK, prompt_override: '@sleep 4\n@print fine' }, SLOW, SLOW],
              min_pass: 2,
              quorum_grace_minutes: 0,
              timeout_minutes: 2,
            },
          ],
        },
        [{ name: 'vote' }],
      );
      const { result, elapsedMs, pgid } = await runWatching(loopId, 'voters/member-3');
      assert.equal(result.status, 'completed', result.reason ?? '');
      assert.ok(elapsedMs < WELL_BEFORE_THE_SLOW_MEMBER_MS, `the loop took ${elapsedMs} ms`);
      assert.ok(!isGroupAlive(pgid), 'the cut member’s process group was killed');

      const runs = await runsOf(h.ctx, loopId);
      const [cut, neverStarted] = [3, 4].map((n) => runNamed(runs, `voters/member-${n}`));
      assert.deepEqual([cut.failure_kind, neverStarted.failure_kind], ['quorum_met', 'quorum_met']);
      assert.match(cut.reason!, /^Cut short: quorum was met at \S+ \(min_pass 2\) and quorum_grace_minutes is 0 while it still ran/);
      assert.match(
        neverStarted.reason!,
        /^Not started: quorum was met at \S+ \(min_pass 2\) and quorum_grace_minutes is 0 before its turn came\./,
      );
      assert.deepEqual([neverStarted.executed_host, neverStarted.stdout], [null, '']);
      const quorum = runNamed(runs, 'voters/quorum');
      assert.match(quorum.stdout, /cut short: fake\/slow \(voters\/member-3\), fake\/slow \(voters\/member-4\)\.\n/);
    });
  });

  it('starts no grace before min_pass members passed: a slow member the quorum needs is waited for', async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        nodes: [],
        ensembles: [
          {
            name: 'pair',
            prompt_template: 'unused',
            members: [
              QUICK,
              { platform: 'fake', model: 'failing', prompt_override: '@exit 1' },
              { ...QUICK, prompt_override: '@sleep 3\n@print late but needed' },
            ],
            min_pass: 2,
            quorum_grace_minutes: 0,
            timeout_minutes: 2,
          },
        ],
      },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(() => startLoopRun(h.ctx, loopId).then(() => waitForLoopRun(h.ctx, loopId)));
    assert.equal(result.status, 'completed', result.reason ?? '');
    const runs = await runsOf(h.ctx, loopId);
    assert.deepEqual(
      [1, 2, 3].map((n) => runNamed(runs, `pair/member-${n}`).failure_kind),
      [null, 'exit_code', null],
    );
    assert.match(
      runNamed(runs, 'pair/quorum').stdout,
      /^Quorum met at \S+ \(min_pass 2\); quorum_grace_minutes 0; every other member ended within it\./,
    );
  });

  it('stops like any loop while its graced ensemble runs: the members’ process groups are killed before the stop returns', async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        nodes: [],
        ensembles: [
          { name: 'pair', prompt_template: 'unused', members: [SLOW, SLOW], min_pass: 1, quorum_grace_minutes: 0.05, timeout_minutes: 2 },
        ],
      },
      [{ name: 'spec' }],
    );
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      const waiting = waitForLoopRun(h.ctx, loopId).catch((error: Error) => error.name);
      const running = await waitUntil('both members to start their processes', async () => {
        const groups = (await runsOf(h.ctx, loopId)).filter((r) => r.pgid !== null);
        return groups.length === 2 && groups;
      });
      assert.equal((await stopLoop(h.ctx, loopId, 30_000)).workflow, 'cancelled');
      assert.equal(await waiting, 'WorkflowFailedError');
      for (const run of running) assert.ok(!isGroupAlive(run.pgid!), `${run.node_name}’s process group was killed`);
    });
    assert.deepEqual(
      (await runsOf(h.ctx, loopId)).map((r) => r.status),
      ['cancelled', 'cancelled'],
    );
  });
});
