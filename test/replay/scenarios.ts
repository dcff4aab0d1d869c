// The loop runs whose histories are recorded for replay: one per way the workflow can walk, each
// small (few nodes, short outputs) so the histories stay readable; and the scheduled and autorun
// starts where they do more than start a run.
import { decideApproval, listInbox } from '../../src/client/approvals-service';
import { sendFeedback } from '../../src/client/feedback-service';
import { updateEnsemble } from '../../src/client/graph-service';
import { updateLoop } from '../../src/client/loops-service';
import { addQueueSpec, createQueue } from '../../src/client/queues-service';
import { writeFileSync } from 'node:fs';
import { updateLoop as updateStoredLoop } from '../../src/store/loops-repository';
import path from 'node:path';
import { resetLoop } from '../../src/client/reset-service';
import { continueLoop, pauseLoop, startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { createSpec } from '../../src/client/specs-service';
import type { EngineHarness } from '../helpers/engine';
import { git, tempGitRepo } from '../helpers/git';
import {
  agent,
  approval,
  chain,
  check,
  checkedFix,
  FAILS_UNTIL_FIXED,
  fixLoop,
  linked,
  loopWithSpecs,
  runsOf,
  runToEnd,
  scratchDir,
  spendWhileRunning,
  type LoopShape,
  untilLoopStatus,
} from '../helpers/loops';
import { waitUntil } from '../helpers/wait';

export interface Scenario {
  name: string;
  /** Workflow runs the scenario leaves behind (a continued or continued-as-new loop has several). */
  runs: number;
  /** The workflow whose runs are recorded, when it is not the loop's run (a scheduled or autorun start of it). */
  workflowId?: (loopId: string) => string;
  /** Whether it needs a server that suggests continue-as-new after a few events. */
  continueAsNew?: boolean;
  /** Runs the loop to its end and returns the loop's id; the harness's worker is polling. */
  play(h: EngineHarness): Promise<string>;
}

function expectStatus(loopId: string, status: string, want: string): string {
  if (status !== want) throw new Error(`loop ${loopId} ended ${status}, expected ${want}`);
  return loopId;
}

/** Runs a new loop of `specs` to its end, which must be `want`. */
async function runOne(h: EngineHarness, shape: LoopShape, specs: { name: string; content?: string }[], want = 'completed') {
  const loopId = await loopWithSpecs(h.ctx, scratchDir(), shape, specs);
  return expectStatus(loopId, (await runToEnd(h.ctx, loopId)).status, want);
}

/**
 * Starts `workflowType` for the loop as its Schedule would, while another loop's run holds the
 * workdir: it waits (its memo says so) until that run ends, then resumes or runs the loop.
 */
async function startedOnceWorkdirFree(h: EngineHarness, loopId: string, workdir: string, workflowType: string, workflowId: string) {
  // In the workdir, where the holder's confined check sees it (its /tmp is its own).
  const gateFile = path.join(workdir, 'open');
  const holder = await loopWithSpecs(h.ctx, workdir, chain(['hold', `while [ ! -e '${gateFile}' ]; do sleep 0.1; done`]), [
    { name: 'spec' },
  ]);
  await startLoopRun(h.ctx, holder);
  await untilLoopStatus(h.ctx, holder, 'running');
  const client = await h.ctx.temporal();
  const start = workflowType === 'autorunWorkflow' ? { loopId } : { loopId, queueId: null };
  const handle = await client.workflow.start(workflowType, { taskQueue: h.config.taskQueue, workflowId, args: [start] });
  await waitUntil('the start to wait for the workdir', async () => (await handle.describe()).memo?.outcome === 'waiting');
  writeFileSync(gateFile, '');
  await handle.result();
  expectStatus(holder, (await waitForLoopRun(h.ctx, holder)).status, 'completed');
  return expectStatus(loopId, (await waitForLoopRun(h.ctx, loopId)).status, 'completed');
}

/** An ensemble `reviewers` of members that print ok, whose pass goes on to a check. */
function reviewedThenJoined(ensemble: Record<string, unknown>): LoopShape {
  return {
    nodes: [check('after', 2, 'echo joined')],
    ensembles: [{ name: 'reviewers', prompt_template: '@print ok', on_pass_to: 'after', ...ensemble }],
  };
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'chain',
    runs: 1,
    play: (h) => runOne(h, chain(['one', 'echo one'], ['two', 'echo two'], ['three', 'echo three']), [{ name: 'spec' }]),
  },
  {
    // A loop made before hosts: HEAD is read locally and the nodes stay on the workflow's queue.
    name: 'no-host',
    runs: 1,
    async play(h) {
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), chain(['one', 'echo one'], ['two', 'echo two']), [{ name: 'spec' }]);
      await updateLoop(h.ctx, { loop_id: loopId, host: null });
      return expectStatus(loopId, (await runToEnd(h.ctx, loopId)).status, 'completed');
    },
  },
  {
    // An infra failure, retried once after its backoff, then routed down its error edge.
    name: 'infra-error-edge',
    runs: 1,
    play: (h) =>
      runOne(
        h,
        {
          settings: { infra_retries: 1 },
          nodes: [check('killed', 1, 'kill -KILL $$'), check('handler', 2, 'echo handled')],
          edges: [{ source: 'killed', target: 'handler', condition: 'error' }],
        },
        [{ name: 'spec' }],
      ),
  },
  { name: 'loopback-round-2', runs: 1, play: (h) => runOne(h, fixLoop('test -f fixed.txt'), [{ name: 'spec' }]) },
  {
    name: 'iteration-limit',
    runs: 1,
    play: (h) => runOne(h, fixLoop('false', { max_iterations: 2 }), [{ name: 'spec' }], 'failed'),
  },
  {
    name: 'router',
    runs: 1,
    play: (h) =>
      runOne(
        h,
        {
          nodes: [
            check('review', 1, 'echo "{{spec_content}}"'),
            { name: 'route', kind: 'router', position: 2, config: { routes: { approved: ['APPROVED'] }, fallback: 'unclear' } },
            check('ship', 3, 'echo ship'),
            check('ask', 4, 'echo ask'),
          ],
          edges: [
            { source: 'review', target: 'route' },
            { source: 'route', target: 'ship', condition: 'approved' },
            { source: 'route', target: 'ask', condition: 'unclear' },
          ],
        },
        [
          { name: 'good', content: 'APPROVED' },
          { name: 'vague', content: 'hmm' },
        ],
      ),
  },
  {
    name: 'ensemble-straggler',
    runs: 1,
    play: (h) =>
      runOne(
        h,
        reviewedThenJoined({
          members: [
            { platform: 'fake', model: 'quick' },
            { platform: 'fake', model: 'slow', prompt_override: '@sleep 60' },
          ],
          min_pass: 1,
          straggler_timeout_minutes: 0.05,
          timeout_minutes: 1,
        }),
        [{ name: 'spec' }],
      ),
  },
  {
    // The grace timer after the quorum, the slow member's cancellation and its record as quorum_met.
    name: 'ensemble-quorum-grace',
    runs: 1,
    play: (h) =>
      runOne(
        h,
        reviewedThenJoined({
          members: [
            { platform: 'fake', model: 'quick' },
            { platform: 'fake', model: 'quick-too' },
            { platform: 'fake', model: 'slow', prompt_override: '@sleep 60' },
          ],
          min_pass: 2,
          quorum_grace_minutes: 0.05,
          timeout_minutes: 2,
        }),
        [{ name: 'spec' }],
      ),
  },
  {
    // One member at a time: the first fails, the second passes, the third never starts.
    name: 'ensemble-cascade',
    runs: 1,
    play: (h) =>
      runOne(
        h,
        reviewedThenJoined({
          kind: 'cascade',
          members: [
            { platform: 'fake', model: 'weak', prompt_override: '@exit 1' },
            { platform: 'fake', model: 'strong' },
            { platform: 'fake', model: 'spare' },
          ],
          timeout_minutes: 1,
        }),
        [{ name: 'spec' }],
      ),
  },
  {
    // The first member's turn fails the run; the continue hands the turn to the second, carried in the resume point.
    name: 'ensemble-round-robin-continued',
    runs: 2,
    async play(h) {
      const shape = reviewedThenJoined({
        kind: 'round_robin',
        members: [
          { platform: 'fake', model: 'weak', prompt_override: '@exit 1' },
          { platform: 'fake', model: 'strong' },
        ],
        timeout_minutes: 1,
      });
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), shape, [{ name: 'spec' }]);
      expectStatus(loopId, (await runToEnd(h.ctx, loopId)).status, 'failed');
      await continueLoop(h.ctx, loopId, 'retry');
      return expectStatus(loopId, (await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    },
  },
  {
    name: 'pause-continue',
    runs: 1,
    async play(h) {
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), chain(['slow', 'sleep 1'], ['next', 'true']), [{ name: 'spec' }]);
      await startLoopRun(h.ctx, loopId);
      await pauseLoop(h.ctx, loopId);
      await untilLoopStatus(h.ctx, loopId, 'paused');
      await continueLoop(h.ctx, loopId, 'retry');
      return expectStatus(loopId, (await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    },
  },
  {
    name: 'blocker-skip',
    runs: 1,
    async play(h) {
      const shape = {
        nodes: [agent('needs_human', 1, '@block need a key'), check('next', 2, 'true')],
        edges: [{ source: 'needs_human', target: 'next' }],
      };
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), shape, [{ name: 'spec' }]);
      await startLoopRun(h.ctx, loopId);
      await untilLoopStatus(h.ctx, loopId, 'blocked');
      await waitUntil('the blocked node to end', async () => (await runsOf(h.ctx, loopId)).some((r) => r.ended_at));
      await continueLoop(h.ctx, loopId, 'skip');
      return expectStatus(loopId, (await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    },
  },
  {
    // A run past its budget blocks before its next node; a raised budget and a continue go on.
    name: 'budget-blocked',
    runs: 1,
    async play(h) {
      const loopId = await loopWithSpecs(
        h.ctx,
        scratchDir(),
        { ...chain(['spend', 'sleep 2'], ['next', 'true']), settings: { budget_usd: 1 } },
        [{ name: 'spec' }],
      );
      await startLoopRun(h.ctx, loopId);
      await spendWhileRunning(h.ctx, loopId, 'spend', 2);
      await untilLoopStatus(h.ctx, loopId, 'blocked');
      await updateLoop(h.ctx, { loop_id: loopId, settings: { budget_usd: 10 } });
      await continueLoop(h.ctx, loopId, 'retry');
      return expectStatus(loopId, (await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    },
  },
  {
    // A watched fix loop whose rounds change nothing blocks with no_progress; the fix lands and a continue goes on.
    name: 'no-progress',
    runs: 1,
    async play(h) {
      const workdir = tempGitRepo();
      const shape = checkedFix('@print nothing to change', FAILS_UNTIL_FIXED, { max_stalled_rounds: 2 });
      const loopId = await loopWithSpecs(h.ctx, workdir, shape, [{ name: 'spec' }]);
      await startLoopRun(h.ctx, loopId);
      await untilLoopStatus(h.ctx, loopId, 'blocked');
      writeFileSync(path.join(workdir, 'fixed.txt'), 'done\n');
      await continueLoop(h.ctx, loopId, 'retry');
      return expectStatus(loopId, (await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    },
  },
  {
    // Isolated members: their worktrees opened, kept when the quorum fails the run, reused by the continue, removed after its quorum.
    name: 'isolated-members-continued',
    runs: 2,
    async play(h) {
      const shape = reviewedThenJoined({
        isolation: 'worktree',
        members: [
          { platform: 'fake', prompt_override: '@write draft.txt one' },
          { platform: 'fake', prompt_override: '@exit 1' },
        ],
      });
      const loopId = await loopWithSpecs(h.ctx, tempGitRepo(), shape, [{ name: 'spec' }]);
      expectStatus(loopId, (await runToEnd(h.ctx, loopId)).status, 'failed');
      await updateEnsemble(h.ctx, { loop_id: loopId, name: 'reviewers', min_pass: 1 });
      await continueLoop(h.ctx, loopId, 'retry');
      return expectStatus(loopId, (await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    },
  },
  {
    name: 'queue',
    runs: 1,
    async play(h) {
      const workdir = scratchDir();
      const loopId = await loopWithSpecs(h.ctx, workdir, chain(['say', 'echo "{{spec_name}}"']), []);
      const queue = await createQueue(h.ctx, { name: `replay-${loopId}` });
      for (const name of ['first', 'second']) {
        const spec = await createSpec(h.ctx, { name, workdir });
        await addQueueSpec(h.ctx, { queue_id: queue.id, spec_id: spec.id });
      }
      await startLoopRun(h.ctx, loopId, { queueId: queue.id });
      return expectStatus(loopId, (await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    },
  },
  {
    // An activity that fails for good at a spec's start (the workdir is a file) fails the run with the reason; before
    // spec-openings a loop with no host read that start in a local activity.
    name: 'unrunnable-workdir',
    runs: 1,
    async play(h) {
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), chain(['any', 'true']), [{ name: 'spec' }]);
      const file = path.join(scratchDir(), 'not-a-dir');
      writeFileSync(file, '');
      await updateLoop(h.ctx, { loop_id: loopId, host: null });
      await updateStoredLoop(h.ctx.db, loopId, { workdir: file });
      return expectStatus(loopId, (await runToEnd(h.ctx, loopId)).status, 'failed');
    },
  },
  {
    name: 'failed-then-continued',
    runs: 2,
    async play(h) {
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), chain(['flaky', 'exit 3'], ['rest', 'true']), [{ name: 'spec' }]);
      expectStatus(loopId, (await runToEnd(h.ctx, loopId)).status, 'failed');
      await continueLoop(h.ctx, loopId, 'skip');
      return expectStatus(loopId, (await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    },
  },
  {
    // The continued run blocks at the claim of a spec out of attempts, then claims it again once it is reset.
    name: 'attempt-limit-reset',
    runs: 2,
    async play(h) {
      const workdir = scratchDir();
      const shape = { ...chain(['tests', 'test -f fixed.txt']), settings: { spec_attempt_limit: 1 } };
      const loopId = await loopWithSpecs(h.ctx, workdir, shape, [{ name: 'spec' }]);
      expectStatus(loopId, (await runToEnd(h.ctx, loopId)).status, 'failed');
      await continueLoop(h.ctx, loopId, 'retry');
      await untilLoopStatus(h.ctx, loopId, 'blocked');
      writeFileSync(path.join(workdir, 'fixed.txt'), 'y');
      await resetLoop(h.ctx, loopId, { specs: ['spec'] });
      await continueLoop(h.ctx, loopId, 'retry');
      return expectStatus(loopId, (await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    },
  },
  {
    // The skip of a failed spec moves on to one that would start on its leftovers: blocked until they are stashed.
    name: 'dirty-start-blocked',
    runs: 2,
    async play(h) {
      const workdir = tempGitRepo();
      const shape = chain(['tests', 'if [ "{{spec_name}}" = broken ]; then echo wip > wip.txt; exit 1; fi']);
      const loopId = await loopWithSpecs(h.ctx, workdir, shape, [{ name: 'broken' }, { name: 'next' }]);
      expectStatus(loopId, (await runToEnd(h.ctx, loopId)).status, 'failed');
      await continueLoop(h.ctx, loopId, 'skip');
      await untilLoopStatus(h.ctx, loopId, 'blocked');
      git(workdir, 'stash', '--include-untracked');
      await continueLoop(h.ctx, loopId, 'retry');
      return expectStatus(loopId, (await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    },
  },
  {
    // Opens its worktree, commits there with commit rights, fails, and is continued in the same worktree.
    name: 'sandboxed-failed-then-continued',
    runs: 2,
    async play(h) {
      const shape: LoopShape = {
        nodes: [agent('committer', 1, '@write work.txt w\n@commit add work', { commit_rights: true }), check('flaky', 2, 'exit 3')],
        edges: [{ source: 'committer', target: 'flaky' }],
      };
      const loopId = await loopWithSpecs(h.ctx, tempGitRepo(), shape, [{ name: 'spec' }]);
      await startLoopRun(h.ctx, loopId, { sandbox: true });
      expectStatus(loopId, (await waitForLoopRun(h.ctx, loopId)).status, 'failed');
      await continueLoop(h.ctx, loopId, 'skip');
      return expectStatus(loopId, (await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    },
  },
  {
    // Every event's hooks: on_failed as the first run fails, then on_blocked, on_spec_completed and on_completed in the continued one.
    name: 'event-hooks',
    runs: 2,
    async play(h) {
      const workdir = scratchDir();
      const shape = {
        nodes: [check('tests', 1, 'test -f fixed.txt'), agent('needs_human', 2, '@block need a key'), check('next', 3, 'true')],
        edges: [
          { source: 'tests', target: 'needs_human' },
          { source: 'needs_human', target: 'next' },
        ],
      };
      const loopId = await loopWithSpecs(h.ctx, workdir, shape, [{ name: 'spec' }]);
      const hooks = [{ command: 'echo "$CANOPY_HOOK_EVENT"' }, { platform: 'fake', prompt: '@print {{loop_name}}' }];
      await updateLoop(h.ctx, {
        loop_id: loopId,
        hooks: { on_failed: hooks, on_blocked: hooks, on_spec_completed: hooks, on_completed: hooks },
      });
      expectStatus(loopId, (await runToEnd(h.ctx, loopId)).status, 'failed');
      writeFileSync(path.join(workdir, 'fixed.txt'), 'y');
      await continueLoop(h.ctx, loopId, 'retry');
      await untilLoopStatus(h.ctx, loopId, 'blocked');
      await waitUntil(
        'the blocked node and its hooks to end',
        async () => (await runsOf(h.ctx, loopId)).filter((r) => r.node_name.startsWith('on_blocked[') && r.ended_at).length === 2,
      );
      await continueLoop(h.ctx, loopId, 'skip');
      return expectStatus(loopId, (await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    },
  },
  {
    // An approval approved by a person, then one rejected (down its fail edge), then one its timeout decides.
    name: 'approvals',
    runs: 1,
    async play(h) {
      const shape: LoopShape = {
        nodes: [
          approval('approve', 1),
          approval('reject', 2),
          check('notice', 3, 'echo "{{previous_output}}"'),
          approval('timeout', 4, { timeout_minutes: 0.01, on_timeout: 'approve' }),
        ],
        edges: [
          { source: 'approve', target: 'reject' },
          { source: 'reject', target: 'notice', condition: 'fail' },
          { source: 'notice', target: 'timeout' },
        ],
      };
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), shape, [{ name: 'spec' }]);
      await startLoopRun(h.ctx, loopId);
      for (const [node, decision] of [
        ['approve', 'approve'],
        ['reject', 'reject'],
      ] as const) {
        await waitUntil(`approval ${node} to wait`, async () =>
          (await listInbox(h.ctx)).some((item) => item.loop_id === loopId && item.node === node),
        );
        await decideApproval(h.ctx, { loop_id: loopId, node, decision, comment: `${decision}d in replay`, by: 'replay' });
      }
      return expectStatus(loopId, (await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    },
  },
  {
    // Two remarks sent while the loop waits at an approval, given to the agent after it, none to the one after that.
    name: 'feedback',
    runs: 1,
    async play(h) {
      const shape = linked(approval('hold', 1), agent('implement', 2, '@print implemented'), agent('polish', 3, '@print polished'));
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), shape, [{ name: 'spec' }]);
      await startLoopRun(h.ctx, loopId);
      await waitUntil('approval hold to wait', async () => (await listInbox(h.ctx)).some((item) => item.loop_id === loopId));
      for (const message of ['first remark', 'second remark']) await sendFeedback(h.ctx, { loop_id: loopId, message, by: 'replay' });
      await decideApproval(h.ctx, { loop_id: loopId, decision: 'approve', by: 'replay' });
      return expectStatus(loopId, (await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    },
  },
  {
    name: 'continue-as-new',
    runs: 2,
    continueAsNew: true,
    play: (h) => runOne(h, chain(['only', 'true']), [{ name: 'first' }, { name: 'second' }]),
  },
  {
    name: 'continue-as-new-in-a-round',
    runs: 2,
    continueAsNew: true,
    play: (h) => runOne(h, fixLoop('test -f fixed.txt'), [{ name: 'spec' }]),
  },
  {
    // A recurring schedule's firing on a workdir another loop's run holds waits for it, then runs the loop and waits for its end.
    name: 'scheduled-run-waits-for-workdir',
    runs: 1,
    workflowId: (loopId) => `schedule-${loopId}`,
    async play(h) {
      const workdir = scratchDir();
      const loopId = await loopWithSpecs(h.ctx, workdir, chain(['only', 'true']), [{ name: 'spec' }]);
      return startedOnceWorkdirFree(h, loopId, workdir, 'scheduledRunWorkflow', `schedule-${loopId}`);
    },
  },
  {
    // An autorun of a failed loop on a workdir another loop's run holds waits for it, then continues the loop.
    name: 'autorun-waits-for-workdir',
    runs: 1,
    workflowId: (loopId) => `autorun-${loopId}`,
    async play(h) {
      const workdir = scratchDir();
      const flag = path.join(workdir, 'failed-once');
      const loopId = await loopWithSpecs(h.ctx, workdir, chain(['flaky', `test -e '${flag}' || { touch '${flag}'; exit 1; }`]), [
        { name: 'spec' },
      ]);
      expectStatus(loopId, (await runToEnd(h.ctx, loopId)).status, 'failed');
      return startedOnceWorkdirFree(h, loopId, workdir, 'autorunWorkflow', `autorun-${loopId}`);
    },
  },
  {
    // An ensemble entered from the fixer in round 1 and from the tests in round 2, whose quorum routes
    // straight to a second ensemble's, with no node between them.
    name: 'chained-ensembles',
    runs: 1,
    play: (h) =>
      runOne(
        h,
        {
          nodes: [check('tests', 1, 'test "{{round}}" = 2'), agent('fix', 2, '@print fixed'), check('judge', 5, 'test "{{round}}" = 2')],
          edges: [
            { source: 'tests', target: 'fix', condition: 'fail' },
            { source: 'judge', target: 'tests', condition: 'fail', type: 'loopback' },
          ],
          ensembles: [
            {
              name: 'drafters',
              prompt_template: '@print ok',
              members: [{ platform: 'fake' }, { platform: 'fake' }],
              entry_from: [
                { node: 'tests', condition: 'pass' },
                { node: 'fix', condition: 'pass' },
              ],
              on_pass_to: { ensemble: 'reviewers' },
            },
            { name: 'reviewers', prompt_template: '@print ok', members: [{ platform: 'fake' }, { platform: 'fake' }], on_pass_to: 'judge' },
          ],
        },
        [{ name: 'spec' }],
      ),
  },
];
