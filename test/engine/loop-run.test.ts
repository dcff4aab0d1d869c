// The loop-run workflow on a real dev server, with real processes and real git repositories.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { continueLoop, liveState, pauseLoop, startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { getLoop } from '../../src/store/loops-repository';
import { latestLoopRun, updateLoopRun } from '../../src/store/loop-runs-repository';
import { listSpecs } from '../../src/store/specs-repository';
import { loopStatus } from '../../src/client/loop-status-service';
import { useEngineHarness } from '../helpers/engine';
import { git, headOf, tempGitRepo } from '../helpers/git';
import { agent, check, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';
import { assertRefusedUnchanged } from '../helpers/store';
import { waitUntil } from '../helpers/wait';

const SEED_COMMITTED_CHECK =
  'test -z "$(git status --porcelain)" && test -n "{{spec_committed_head}}" && test "$(git rev-parse HEAD)" = "{{spec_committed_head}}"';

describe('loop runs', () => {
  const h = useEngineHarness();

  it('runs a chain of checks to completion, passing each node', async () => {
    const workdir = scratchDir();
    const loopId = await loopWithSpecs(
      h.ctx,
      workdir,
      {
        nodes: [check('one', 1, 'echo one > one.txt'), check('two', 2, 'cat one.txt'), check('three', 3, 'echo "spec={{spec_name}}"')],
        edges: [
          { source: 'one', target: 'two' },
          { source: 'two', target: 'three' },
        ],
      },
      [{ name: 'first spec' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed');
    const runs = await runsOf(h.ctx, loopId);
    assert.deepEqual(runs.map((r) => [r.node_name, r.outcome]).sort(), [
      ['one', 'pass'],
      ['three', 'pass'],
      ['two', 'pass'],
    ]);
    assert.equal(runs.find((r) => r.node_name === 'two')!.stdout.trim(), 'one');
    assert.equal(runs.find((r) => r.node_name === 'three')!.stdout.trim(), 'spec=first spec');
    assert.equal((await getLoop(h.ctx.db, loopId))!.status, 'completed');
    assert.deepEqual(
      (await listSpecs(h.ctx.db, { loopId })).map((s) => s.status),
      ['completed'],
    );

    const client = await h.ctx.temporal();
    const found = await waitUntil('the run to be searchable by loop id', async () => {
      const runs = [];
      for await (const run of client.workflow.list({ query: `CanopyLoopId = "${loopId}" AND CanopyWorkdir = "${workdir}"` }))
        runs.push(run);
      return runs.length > 0 && runs;
    });
    assert.equal(found[0].workflowId, `loop-${loopId}`);
    assert.deepEqual(found[0].memo, { loop_name: 'engine test', workdir, queue_id: null });
    await waitUntil('the run to be listed under its final status', async () => {
      for await (const run of client.workflow.list({ query: `CanopyLoopId = "${loopId}" AND CanopyLoopStatus = "completed"` })) return run;
      return null;
    });
    const described = await client.workflow.getHandle(`loop-${loopId}`).describe();
    assert.equal(await described.staticSummary(), 'loop engine test');
    assert.equal(await described.staticDetails(), `workdir ${workdir}\nits own specs`);
  });

  it('runs loops whose nodes are named __proto__ and constructor', async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        nodes: [agent('__proto__', 1, '@print round {{round}}'), check('constructor', 2, 'test "{{round}}" = 2')],
        edges: [
          { source: '__proto__', target: 'constructor' },
          { source: 'constructor', target: '__proto__', condition: 'fail', type: 'loopback' },
        ],
      },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed', result.reason ?? '');
    assert.deepEqual(
      (await runsOf(h.ctx, loopId)).map((r) => `${r.node_name}:${r.round}:${r.outcome}`),
      ['__proto__:1:pass', 'constructor:1:fail', '__proto__:2:pass', 'constructor:2:pass'],
    );
  });

  it('follows a fail edge into a fixer and loops back to the implementer, passing on round 2', async () => {
    const workdir = scratchDir();
    const loopId = await loopWithSpecs(
      h.ctx,
      workdir,
      {
        nodes: [
          agent('implementer', 1, '@print implementing round {{round}}'),
          check('tests', 2, 'test -f fixed.txt'),
          agent('fixer', 3, '@write fixed.txt fixed\n@print fixed after {{previous_feedback}}'),
        ],
        edges: [
          { source: 'implementer', target: 'tests' },
          { source: 'tests', target: 'fixer', condition: 'fail' },
          { source: 'fixer', target: 'implementer', type: 'loopback' },
        ],
      },
      [{ name: 'fix it' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed');
    const runs = await runsOf(h.ctx, loopId);
    const implementer = runs
      .filter((r) => r.node_name === 'implementer')
      .map((r) => r.round)
      .sort();
    assert.deepEqual(implementer, [1, 2]);
    assert.deepEqual(
      runs
        .filter((r) => r.node_name === 'tests')
        .map((r) => `${r.round}:${r.outcome}`)
        .sort(),
      ['1:fail', '2:pass'],
    );
    const fixer = runs.find((r) => r.node_name === 'fixer')!;
    assert.match(fixer.input, /"node":"tests","outcome":"fail","failure_kind":"exit_code"/);
  });

  it('fails the spec with iteration_limit naming the head when the budget runs out', async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        settings: { max_iterations: 2 },
        nodes: [agent('implementer', 1, '@print trying'), check('tests', 2, 'false'), agent('fixer', 3, '@print no luck')],
        edges: [
          { source: 'implementer', target: 'tests' },
          { source: 'tests', target: 'fixer', condition: 'fail' },
          { source: 'fixer', target: 'implementer', type: 'loopback' },
        ],
      },
      [{ name: 'hopeless' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'failed');
    assert.equal(result.failureKind, 'iteration_limit');
    assert.equal(result.failingNode, 'implementer');
    assert.match(result.reason!, /'implementer'.*budget of 2 rounds/);
    const runs = await runsOf(h.ctx, loopId);
    assert.equal(runs.filter((r) => r.node_name === 'implementer').length, 2);
    assert.equal((await getLoop(h.ctx.db, loopId))!.status, 'failed');
  });

  it('routes by token and by fallback, draining specs in order', async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        nodes: [
          check('review', 1, 'echo "verdict: {{spec_content}}"'),
          {
            name: 'route',
            kind: 'router',
            position: 2,
            config: { routes: { approved: ['APPROVED'], changes: ['CHANGES REQUESTED'] }, fallback: 'unclear' },
          },
          check('ship', 3, 'echo shipping'),
          check('ask_human', 4, 'echo asking'),
        ],
        edges: [
          { source: 'review', target: 'route' },
          { source: 'route', target: 'ship', condition: 'approved' },
          { source: 'route', target: 'ask_human', condition: 'unclear' },
        ],
      },
      [
        { name: 'good', content: 'looks fine, approved' },
        { name: 'vague', content: 'hmm' },
      ],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed');
    const runs = await runsOf(h.ctx, loopId);
    const specs = await listSpecs(h.ctx.db, { loopId });
    const bySpec = (name: string) =>
      runs
        .filter((r) => r.spec_id === specs.find((s) => s.name === name)!.id)
        .map((r) => r.node_name)
        .sort();
    assert.deepEqual(bySpec('good'), ['review', 'route', 'ship']);
    assert.deepEqual(bySpec('vague'), ['ask_human', 'review', 'route']);
    assert.deepEqual(
      runs
        .filter((r) => r.node_name === 'route')
        .map((r) => r.outcome)
        .sort(),
      ['approved', 'unclear'],
    );
  });

  it('passes or fails a gate on the upstream output', async () => {
    const shape = {
      nodes: [
        check('produce', 1, 'echo "{{spec_content}}"'),
        { name: 'gate', kind: 'gate', position: 2, config: { output_contains: 'OK', output_not_contains: 'ERROR' } },
        check('after', 3, 'true'),
      ],
      edges: [
        { source: 'produce', target: 'gate' },
        { source: 'gate', target: 'after' },
      ],
    };
    const good = await loopWithSpecs(h.ctx, scratchDir(), shape, [{ name: 's', content: 'all OK' }]);
    const bad = await loopWithSpecs(h.ctx, scratchDir(), shape, [{ name: 's', content: 'OK but ERROR' }]);
    const [goodResult, badResult] = await h.withWorker(async () => [await runToEnd(h.ctx, good), await runToEnd(h.ctx, bad)]);
    assert.equal(goodResult.status, 'completed');
    assert.equal(badResult.status, 'failed');
    assert.equal(badResult.failingNode, 'gate');
    assert.equal(badResult.failureKind, 'gate');
    assert.match(badResult.reason!, /does not contain "ERROR"/);
  });

  it('fails a node without commit rights that commits, with the exact reason, and leaves HEAD alone', async () => {
    const repo = tempGitRepo();
    const before = headOf(repo);
    const loopId = await loopWithSpecs(
      h.ctx,
      repo,
      {
        nodes: [
          agent('implementer', 1, '@write work.txt done\n@commit sneaky commit'),
          agent('committer', 2, '@commit land it', { commit_rights: true }),
        ],
        edges: [{ source: 'implementer', target: 'committer' }],
      },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    const after = headOf(repo);
    assert.notEqual(after, before);
    assert.equal(result.status, 'failed');
    assert.equal(result.failureKind, 'commit_rights');
    assert.equal(result.reason, `Node 'implementer' committed but has no commit rights: HEAD moved ${before} -> ${after}`);
    const runs = await runsOf(h.ctx, loopId);
    assert.equal(runs.length, 1);
    assert.match(runs[0].stdout, /committed but has no commit rights/);
    assert.equal(git(repo, 'log', '-1', '--format=%s'), 'sneaky commit');
    assert.equal((await loopStatus(h.ctx, loopId)).last_run?.reason, result.reason, 'loop info shows the reason');
  });

  it("hands a commit-rights violation to the next node's previous_feedback, and judges an ensemble as a group", async () => {
    const repo = tempGitRepo();
    const loopId = await loopWithSpecs(
      h.ctx,
      repo,
      {
        nodes: [
          agent('implementer', 1, '@write a.txt a\n@commit too early'),
          check('notice', 2, 'echo "{{previous_feedback}}"'),
          agent('committer', 4, '@commit land', { commit_rights: true }),
        ],
        edges: [
          { source: 'implementer', target: 'notice', condition: 'fail' },
          { source: 'notice', target: 'reviewers' },
        ],
        ensembles: [
          {
            name: 'reviewers',
            prompt_template: '@print reviewed',
            members: [
              { platform: 'fake', model: 'quiet' },
              { platform: 'fake', model: 'sneaky', prompt_override: '@write b.txt b\n@commit member commit' },
            ],
            timeout_minutes: 1,
            on_pass_to: 'committer',
          },
        ],
      },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    const runs = await runsOf(h.ctx, loopId);
    const implementer = runs.find((r) => r.node_name === 'implementer')!;
    assert.equal(implementer.failure_kind, 'commit_rights');
    assert.ok(runs.find((r) => r.node_name === 'notice')!.stdout.includes(implementer.reason!), 'the reason reaches previous_feedback');
    assert.equal(result.failingNode, 'reviewers');
    assert.equal(result.failureKind, 'commit_rights');
    assert.match(result.reason!, /^Ensemble 'reviewers' committed but has no commit rights: HEAD moved [0-9a-f]{40} -> [0-9a-f]{40}$/);
    assert.equal(runs.find((r) => r.node_name === 'reviewers/member-2')!.outcome, 'pass', 'members are not judged one by one');
  });

  it("records a committer's commit as spec_committed_head, which the seed's check accepts", async () => {
    const repo = tempGitRepo();
    const loopId = await loopWithSpecs(
      h.ctx,
      repo,
      {
        nodes: [
          agent('implementer', 1, '@write feature.txt new feature'),
          agent('committer', 2, '@commit add feature', { commit_rights: true }),
          check('verify', 3, SEED_COMMITTED_CHECK),
        ],
        edges: [
          { source: 'implementer', target: 'committer' },
          { source: 'committer', target: 'verify' },
        ],
      },
      [{ name: 'feature' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed', result.reason ?? '');
    const verify = (await runsOf(h.ctx, loopId)).find((r) => r.node_name === 'verify')!;
    assert.ok(verify.input.includes('{{spec_committed_head}}') === false);
    assert.ok(verify.input.includes(headOf(repo)), 'the rendered command shows the committed head');
  });

  it('fails a silent agent with no_report when require_report is set, and honours an explicit report', async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        nodes: [agent('reporter', 1, '@report pass all done'), agent('silent', 2, '@print I did things', { require_report: true })],
        edges: [{ source: 'reporter', target: 'silent' }],
      },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'failed');
    assert.equal(result.failureKind, 'no_report');
    const runs = await runsOf(h.ctx, loopId);
    const reporter = runs.find((r) => r.node_name === 'reporter')!;
    assert.equal(reporter.outcome, 'pass');
    assert.equal(reporter.unreported, false);
    assert.equal(reporter.reported_output, 'all done');
    const silent = runs.find((r) => r.node_name === 'silent')!;
    assert.equal(silent.unreported, true);
    assert.equal(silent.failure_kind, 'no_report');
  });

  it('pauses after the running node and continues', async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        nodes: [check('slow', 1, 'sleep 1'), check('next', 2, 'true'), check('last', 3, 'true')],
        edges: [
          { source: 'slow', target: 'next' },
          { source: 'next', target: 'last' },
        ],
      },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      await pauseLoop(h.ctx, loopId);
      await waitUntil('the loop to pause', async () => (await getLoop(h.ctx.db, loopId))!.status === 'paused');
      assert.deepEqual(
        (await runsOf(h.ctx, loopId)).map((r) => r.node_name),
        ['slow'],
      );
      const live = await liveState(h.ctx, loopId);
      assert.equal(live?.status, 'paused');
      assert.equal(live?.vertex, 'slow');
      assert.deepEqual(live?.vertexStates, { slow: 'pass', next: 'pending', last: 'pending' });
      await continueLoop(h.ctx, loopId, 'retry');
      return waitForLoopRun(h.ctx, loopId);
    });
    assert.equal(result.status, 'completed');
    assert.deepEqual((await runsOf(h.ctx, loopId)).map((r) => r.node_name).sort(), ['last', 'next', 'slow']);
  });

  it('continues a failed loop by skipping the failed node', async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        nodes: [check('flaky', 1, 'exit 3'), check('rest', 2, 'echo rest ran')],
        edges: [{ source: 'flaky', target: 'rest' }],
      },
      [{ name: 'spec' }],
    );
    const [first, second] = await h.withWorker(async () => {
      const failed = await runToEnd(h.ctx, loopId);
      await continueLoop(h.ctx, loopId, 'skip');
      return [failed, await waitForLoopRun(h.ctx, loopId)];
    });
    assert.equal(first.status, 'failed');
    assert.equal(first.failingNode, 'flaky');
    assert.equal(second.status, 'completed');
    const runs = await runsOf(h.ctx, loopId);
    assert.equal(runs.filter((r) => r.node_name === 'flaky').length, 1, 'skip does not rerun the failed node');
    assert.equal(runs.find((r) => r.node_name === 'rest')!.stdout.trim(), 'rest ran');
  });

  it('refuses to continue from a resume point canopy did not write, naming the reset, and loop info says why', async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('flaky', 1, 'exit 3')] }, [{ name: 'spec' }]);
    const failed = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(failed.status, 'failed');
    const run = (await latestLoopRun(h.ctx.db, loopId))!;
    assert.equal((await loopStatus(h.ctx, loopId)).last_run?.resume?.vertex, 'flaky');

    await updateLoopRun(h.ctx.db, run.id, { resume: JSON.stringify({ specId: 'spec', vertex: 'flaky', rounds: 'many' }) });
    const refusal = await assertRefusedUnchanged(h.ctx, () => continueLoop(h.ctx, loopId, 'retry'), {
      code: 'refused',
      message: /holds a resume point canopy cannot use \(rounds: .*strategy: .*\); reset the loop with `canopy loop reset/,
    });
    const info = await loopStatus(h.ctx, loopId);
    assert.equal(info.last_run?.resume, null);
    assert.ok(info.warnings.includes(refusal.message), 'loop info shows the same reason');

    await updateLoopRun(h.ctx.db, run.id, { resume: '{not json' });
    await assertRefusedUnchanged(h.ctx, () => continueLoop(h.ctx, loopId, 'retry'), { code: 'refused', message: /it is not JSON/ });
  });

  it('runs two loops on two workdirs at once without touching each other', async () => {
    const shape = (tag: string) => ({
      nodes: [check('a', 1, `sleep 1; echo ${tag} > owner.txt`), check('b', 2, 'cat owner.txt')],
      edges: [{ source: 'a', target: 'b' }],
    });
    const first = await loopWithSpecs(h.ctx, scratchDir(), shape('first'), [{ name: 's' }]);
    const second = await loopWithSpecs(h.ctx, scratchDir(), shape('second'), [{ name: 's' }]);
    const results = await h.withWorker(async () => {
      await startLoopRun(h.ctx, first);
      await startLoopRun(h.ctx, second);
      return Promise.all([waitForLoopRun(h.ctx, first), waitForLoopRun(h.ctx, second)]);
    });
    assert.deepEqual(
      results.map((r) => r.status),
      ['completed', 'completed'],
    );
    assert.equal((await runsOf(h.ctx, first)).find((r) => r.node_name === 'b')!.stdout.trim(), 'first');
    assert.equal((await runsOf(h.ctx, second)).find((r) => r.node_name === 'b')!.stdout.trim(), 'second');
    const [a1, a2] = [first, second].map(async (id) => (await runsOf(h.ctx, id)).find((r) => r.node_name === 'a')!);
    const [x, y] = await Promise.all([a1, a2]);
    assert.ok(x.started_at < y.ended_at! && y.started_at < x.ended_at!, 'the two loops ran at the same time');
  });
});
