// Sandboxed runs on a real dev server with real git repositories: each run works in a worktree of
// its own, concurrent runs of loops sharing a repository never share a tree, and `sandbox land`
// merges a run's branch back (refusing with the conflict) or `sandbox discard` drops it; through
// the service, the CLI as a process and the MCP client from the SDK.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openContext } from '../../src/client/context';
import { continueLoop, startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { discardSandbox, landSandbox, listSandboxViews, type SandboxView } from '../../src/client/sandbox-service';
import { loopStatus } from '../../src/client/loop-status-service';
import { deleteLoop, getLoopWithWarnings } from '../../src/client/loops-service';
import { loadConfig } from '../../src/config';
import { CanopyError } from '../../src/domain/errors';
import { latestLoopRun } from '../../src/store/loop-runs-repository';
import { getLoop } from '../../src/store/loops-repository';
import { listSandboxes } from '../../src/store/sandboxes-repository';
import { childEnv, useEngineHarness } from '../helpers/engine';
import { git, headOf, tempGitRepo } from '../helpers/git';
import { agent, check, loopWithSpecs, runsOf, scratchDir, type LoopShape } from '../helpers/loops';
import { runCanopy } from '../helpers/processes';
import { waitUntil } from '../helpers/wait';
import { callOk, callRefused, connectStdio, type StdioSession } from '../helpers/mcp-client';

/** The committer's commit is HEAD of the tree the check runs in, which is the sandbox on its own branch. */
const COMMITTED_IN_SANDBOX =
  'test -n "{{spec_committed_head}}" && test "$(git rev-parse HEAD)" = "{{spec_committed_head}}" && ' +
  'test "$PWD" = "{{workdir}}" && git rev-parse --abbrev-ref HEAD | grep -q "^canopy/sandbox-lrun_"';

/** Writes `file` and commits it with commit rights, then checks the commit is the spec's committed head in the sandbox. */
function committing(file: string, text: string, first: ReturnType<typeof check>[] = []): LoopShape {
  const steps = [
    ...first,
    agent('committer', first.length + 1, `@write ${file} ${text}\n@commit add ${file}`, { commit_rights: true }),
    check('verify', first.length + 2, `${COMMITTED_IN_SANDBOX} && test -f ${file}`),
  ];
  return { nodes: steps, edges: steps.slice(1).map((step, index) => ({ source: steps[index].name, target: step.name })) };
}

/** A check that only passes once the other loop's run has started too: both runs are under way at once. */
function meeting(markers: string, me: string, other: string) {
  const mine = path.join(markers, me);
  const theirs = path.join(markers, other);
  return check(
    'meet',
    1,
    `touch ${mine}; for i in $(seq 1 300); do test -f ${theirs} && exit 0; sleep 0.1; done; echo "never met ${other}"; exit 1`,
  );
}

/**
 * A path the test and the confined checks of every run in `repo` see alike, each of which has a /tmp of its own: in the
 * repository's git metadata, which the sandboxes' worktrees and a workdir below the top share.
 */
const sharedFile = (repo: string, name: string) => path.join(repo, '.git', name);

async function refusal(work: Promise<unknown>): Promise<CanopyError> {
  const error = await work.then(
    () => assert.fail('expected a refusal'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof CanopyError, `expected a CanopyError, got ${String(error)}`);
  return error;
}

const branchesOf = (repo: string) => git(repo, 'branch', '--list', 'canopy/*', '--format=%(refname:short)');
const worktreesOf = (repo: string) =>
  git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('worktree '));

describe('sandboxed runs', () => {
  const h = useEngineHarness();
  let mcp: StdioSession;
  const cli = (...args: string[]) => runCanopy(childEnv(h.config), ...args);

  before(async () => {
    mcp = await connectStdio(childEnv(h.config) as Record<string, string>);
  });
  after(async () => {
    await mcp.client.close();
  });

  async function sandboxOf(loopId: string): Promise<SandboxView> {
    const { sandboxes } = await listSandboxViews(h.ctx, { loop_id: loopId });
    assert.equal(sandboxes.length, 1, `loop ${loopId} has one sandbox`);
    return sandboxes[0];
  }

  it('runs two loops of one repository at the same time, each in its own worktree, and lands both', async () => {
    const repo = tempGitRepo();
    const base = headOf(repo);
    const markers = sharedFile(repo, 'markers');
    mkdirSync(markers);
    const first = await loopWithSpecs(h.ctx, repo, committing('first.txt', 'one', [meeting(markers, 'first', 'second')]), [{ name: 's' }]);
    const second = await loopWithSpecs(h.ctx, repo, committing('second.txt', 'two', [meeting(markers, 'second', 'first')]), [
      { name: 's' },
    ]);

    const results = await h.withWorker(async () => {
      const started = await Promise.all([first, second].map((loopId) => startLoopRun(h.ctx, loopId, { sandbox: true })));
      assert.deepEqual(
        started.map((s) => s.sandboxed),
        [true, true],
      );
      return Promise.all([first, second].map((loopId) => waitForLoopRun(h.ctx, loopId)));
    });
    assert.deepEqual(
      results.map((r) => [r.status, r.reason]),
      [
        ['completed', null],
        ['completed', null],
      ],
    );
    for (const loopId of [first, second]) {
      const runs = await runsOf(h.ctx, loopId);
      assert.deepEqual(
        runs.map((r) => [r.node_name, r.outcome]),
        [
          ['meet', 'pass'],
          ['committer', 'pass'],
          ['verify', 'pass'],
        ],
        'each run met the other under way, committed with commit rights and saw its commit as spec_committed_head in its sandbox',
      );
    }
    assert.equal(headOf(repo), base, 'the workdir was not touched by either run');
    assert.equal(git(repo, 'status', '--porcelain'), '');

    const sandboxes = [await sandboxOf(first), await sandboxOf(second)];
    for (const sandbox of sandboxes) {
      assert.equal(sandbox.status, 'active');
      assert.equal(sandbox.run_status, 'completed');
      assert.equal(sandbox.commits_ahead, 1);
      assert.equal(sandbox.base_head, base);
      assert.equal(sandbox.branch, `canopy/sandbox-${sandbox.loop_run_id}`);
      assert.equal(sandbox.path, path.join(h.config.home, 'sandboxes', sandbox.loop_run_id));
      assert.equal(sandbox.host, h.config.hostId);
    }
    assert.equal(worktreesOf(repo).length, 3);
    const info = await loopStatus(h.ctx, first);
    assert.deepEqual(info.last_run?.sandbox, {
      id: sandboxes[0].id,
      status: 'active',
      branch: sandboxes[0].branch,
      path: sandboxes[0].path,
    });
    assert.deepEqual(
      (await getLoopWithWarnings(h.ctx, first)).sandboxes.map((s) => s.id),
      [sandboxes[0].id],
      'loop_get names the loop’s active sandboxes',
    );
    assert.deepEqual(
      (await callOk(mcp.client, 'loop_get', { loop_id: second })).sandboxes.map((s: SandboxView) => s.branch),
      [sandboxes[1].branch],
    );
    assert.deepEqual(
      (await callOk(mcp.client, 'sandbox_list', { loop_id: first })).sandboxes.map((s: SandboxView) => [s.id, s.path, s.run_status]),
      [[sandboxes[0].id, sandboxes[0].path, 'completed']],
    );
    assert.match(
      (await cli('loop', 'info', first)).stdout,
      new RegExp(`sandbox +${sandboxes[0].id} active, branch ${sandboxes[0].branch} at `),
    );
    const listed = JSON.parse((await cli('sandbox', 'list', '--loop', second, '--json')).stdout);
    assert.deepEqual(
      listed.sandboxes.map((s: SandboxView) => [s.id, s.status, s.commits_ahead]),
      [[sandboxes[1].id, 'active', 1]],
    );
    assert.match((await cli('sandbox', 'list')).stdout, new RegExp(`${sandboxes[1].id} +${second} +active +completed +1 +canopy/sandbox-`));

    // A repository that allows only fast-forwards still takes the second sandbox, as a merge commit.
    git(repo, 'config', 'merge.ff', 'only');
    const landedFirst = await landSandbox(h.ctx, sandboxes[0].id);
    assert.equal(landedFirst.onto, 'main');
    assert.equal(landedFirst.commits, 1);
    assert.equal(git(repo, 'log', '-1', '--format=%s'), 'add first.txt', 'the first lands as a fast-forward');
    assert.equal(landedFirst.sandbox.landed_commit, headOf(repo));

    const landedSecond = JSON.parse((await cli('sandbox', 'land', sandboxes[1].id, '--json')).stdout);
    assert.equal(landedSecond.sandbox.status, 'landed');
    assert.equal(git(repo, 'log', '-1', '--format=%s'), `Land sandbox ${sandboxes[1].id} of loop engine test (2) (${sandboxes[1].branch})`);
    assert.equal(git(repo, 'rev-list', '--count', `${base}..HEAD`), '3', 'both commits and the merge commit');
    assert.equal(git(repo, 'show', 'HEAD:first.txt'), 'one');
    assert.equal(git(repo, 'show', 'HEAD:second.txt'), 'two');
    assert.equal(git(repo, 'status', '--porcelain'), '');
    assert.equal(branchesOf(repo), '', 'both sandbox branches are deleted');
    assert.equal(worktreesOf(repo).length, 1, 'both worktrees are removed');
    for (const sandbox of sandboxes) assert.equal(existsSync(sandbox.path), false);
    assert.deepEqual(
      (await listSandboxViews(h.ctx, { loop_id: first })).sandboxes.map((s) => [s.status, s.commits_ahead]),
      [['landed', null]],
    );
  });

  it('refuses a land that conflicts, naming the path and changing nothing; discards; refuses landing twice', async () => {
    const repo = tempGitRepo();
    const first = await loopWithSpecs(h.ctx, repo, committing('shared.txt', 'ours'), [{ name: 's' }]);
    const second = await loopWithSpecs(h.ctx, repo, committing('shared.txt', 'theirs'), [{ name: 's' }]);
    await h.withWorker(async () => {
      for (const loopId of [first, second]) {
        await startLoopRun(h.ctx, loopId, { sandbox: true });
        assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
      }
    });
    const [ours, theirs] = [await sandboxOf(first), await sandboxOf(second)];
    await landSandbox(h.ctx, ours.id);
    const landedHead = headOf(repo);

    const unchanged = () => {
      assert.equal(headOf(repo), landedHead);
      assert.equal(git(repo, 'status', '--porcelain'), '');
      assert.equal(git(repo, 'show', 'HEAD:shared.txt'), 'ours');
      assert.equal(branchesOf(repo), theirs.branch);
      assert.equal(existsSync(theirs.path), true);
    };
    const conflict = await refusal(landSandbox(h.ctx, theirs.id));
    assert.equal(conflict.code, 'conflict');
    assert.match(
      conflict.message,
      /does not apply cleanly onto main .* conflicts in shared\.txt\. Nothing was changed\. Merge it yourself/,
    );
    unchanged();
    const byCli = await cli('sandbox', 'land', theirs.id);
    assert.notEqual(byCli.status, 0);
    assert.match(byCli.stderr, /conflicts in shared\.txt/);
    unchanged();
    assert.match(await callRefused(mcp.client, 'sandbox_land', { sandbox_id: theirs.id }), /conflicts in shared\.txt/);
    unchanged();
    assert.equal((await sandboxOf(second)).status, 'active');

    const discarded = JSON.parse((await cli('sandbox', 'discard', theirs.id, '--json')).stdout);
    assert.equal(discarded.sandbox.status, 'discarded');
    assert.equal(branchesOf(repo), '');
    assert.equal(existsSync(theirs.path), false);
    assert.equal(headOf(repo), landedHead, 'discarding leaves the workdir alone');

    const twice = await refusal(landSandbox(h.ctx, ours.id));
    assert.equal(twice.message, `Sandbox ${ours.id} was already landed as commit ${landedHead}; there is nothing left to land.`);
    const twiceByCli = await cli('sandbox', 'land', ours.id);
    assert.notEqual(twiceByCli.status, 0);
    assert.match(twiceByCli.stderr, /was already landed/);
    assert.match(await callRefused(mcp.client, 'sandbox_land', { sandbox_id: ours.id }), /was already landed/);
    assert.match(await callRefused(mcp.client, 'sandbox_discard', { sandbox_id: theirs.id }), /was already discarded/);
    assert.equal(headOf(repo), landedHead);
  });

  it('refuses to land or discard while the run is open, and to land into a workdir with uncommitted changes', async () => {
    const repo = tempGitRepo();
    const gate = sharedFile(repo, 'go');
    const loopId = await loopWithSpecs(
      h.ctx,
      repo,
      committing('work.txt', 'w', [check('wait', 1, `while [ ! -f ${gate} ]; do sleep 0.1; done`)]),
      [{ name: 's' }],
    );
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId, { sandbox: true });
      const open = await waitUntil('the sandbox to be opened', async () => (await listSandboxes(h.ctx.db, { loopId }))[0]);
      for (const verb of ['land', 'discard'] as const) {
        const refused = await refusal(verb === 'land' ? landSandbox(h.ctx, open.id) : discardSandbox(h.ctx, open.id));
        assert.match(
          refused.message,
          new RegExp(`^Sandbox ${open.id} is still in use: its run ${open.loop_run_id} of loop ${loopId} is open`),
        );
        const byCli = await cli('sandbox', verb, open.id);
        assert.notEqual(byCli.status, 0);
        assert.match(byCli.stderr, /is still in use/);
        assert.match(await callRefused(mcp.client, `sandbox_${verb}`, { sandbox_id: open.id }), /is still in use/);
      }
      assert.equal(existsSync(open.path), true);
      writeFileSync(gate, '');
      assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    });
    const sandbox = await sandboxOf(loopId);
    const kept = await refusal(deleteLoop(h.ctx, loopId));
    assert.match(kept.message, new RegExp(`^Loop ${loopId} has sandboxes not yet landed or discarded \\(${sandbox.id}\\)`));
    const keptByCli = await cli('loop', 'delete', loopId);
    assert.notEqual(keptByCli.status, 0);
    assert.match(keptByCli.stderr, /has sandboxes not yet landed or discarded/);
    assert.match(await callRefused(mcp.client, 'loop_delete', { loop_id: loopId }), /has sandboxes not yet landed or discarded/);
    assert.ok(await getLoop(h.ctx.db, loopId));
    const base = headOf(repo);
    writeFileSync(path.join(repo, 'notes.txt'), 'not committed');
    writeFileSync(path.join(repo, 'README.md'), 'changed');
    const dirty = await refusal(landSandbox(h.ctx, sandbox.id));
    assert.match(dirty.message, /^The workdir .* has uncommitted changes \(README\.md, notes\.txt\); commit or stash them/);
    const byCli = await cli('sandbox', 'land', sandbox.id);
    assert.notEqual(byCli.status, 0);
    assert.match(byCli.stderr, /uncommitted changes \(README\.md, notes\.txt\)/);
    assert.match(await callRefused(mcp.client, 'sandbox_land', { sandbox_id: sandbox.id }), /uncommitted changes/);
    assert.equal(headOf(repo), base);
    assert.equal((await sandboxOf(loopId)).status, 'active');

    git(repo, 'checkout', '--', 'README.md');
    rmSync(path.join(repo, 'notes.txt'));
    writeFileSync(path.join(sandbox.path, 'scratch.txt'), 'left in the sandbox');
    const unsaved = await refusal(landSandbox(h.ctx, sandbox.id));
    assert.match(unsaved.message, new RegExp(`^Sandbox ${sandbox.id} has uncommitted changes \\(scratch\\.txt\\) that landing would lose`));
    rmSync(path.join(sandbox.path, 'scratch.txt'));
    await landSandbox(h.ctx, sandbox.id);
    assert.equal(git(repo, 'log', '-1', '--format=%s'), 'add work.txt');
    assert.deepEqual(await deleteLoop(h.ctx, loopId), { loop_id: loopId, deleted: true }, 'a landed sandbox keeps no loop');
  });

  it('refuses to land while another loop runs in the same working tree, and lands once it has ended', async () => {
    const repo = tempGitRepo();
    const sandboxed = await loopWithSpecs(h.ctx, repo, committing('work.txt', 'w'), [{ name: 's' }]);
    mkdirSync(path.join(repo, 'web'));
    const gate = sharedFile(repo, 'go');
    const inPlace = await loopWithSpecs(
      h.ctx,
      path.join(repo, 'web'),
      { nodes: [check('wait', 1, `while [ ! -f ${gate} ]; do sleep 0.1; done`)] },
      [{ name: 's' }],
    );
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, sandboxed, { sandbox: true });
      assert.equal((await waitForLoopRun(h.ctx, sandboxed)).status, 'completed');
      const sandbox = await sandboxOf(sandboxed);
      await startLoopRun(h.ctx, inPlace);
      await waitUntil('the other loop’s check to run', async () => (await runsOf(h.ctx, inPlace)).some((run) => run.pgid !== null));
      const base = headOf(repo);
      const refused = await refusal(landSandbox(h.ctx, sandbox.id));
      assert.equal(
        refused.message,
        `Loop engine test (${inPlace}) is running in ${path.join(repo, 'web')}, in the same working tree as ${repo}; landing sandbox ${sandbox.id} ` +
          `would change files under its nodes. Wait for it to end, or pause it (\`canopy loop pause ${inPlace}\`), then land again. Nothing was changed.`,
      );
      assert.match((await cli('sandbox', 'land', sandbox.id)).stderr, /is running in .*, in the same working tree/);
      assert.deepEqual([headOf(repo), (await sandboxOf(sandboxed)).status], [base, 'active']);

      writeFileSync(gate, '');
      assert.equal((await waitForLoopRun(h.ctx, inPlace)).status, 'completed');
      await landSandbox(h.ctx, sandbox.id);
      assert.equal(git(repo, 'show', 'HEAD:work.txt'), 'w');
    });
  });

  it('refuses a sandbox id it does not know, and one on another host, through every interface', async () => {
    const unknown = await refusal(landSandbox(h.ctx, 'sbx_nosuchsandbox'));
    assert.equal(unknown.code, 'not_found');
    assert.equal(unknown.message, "No sandbox with id 'sbx_nosuchsandbox'. List sandboxes with `canopy sandbox list`.");
    for (const verb of ['land', 'discard']) {
      const byCli = await cli('sandbox', verb, 'sbx_nosuchsandbox');
      assert.notEqual(byCli.status, 0);
      assert.match(byCli.stderr, /No sandbox with id 'sbx_nosuchsandbox'/);
      assert.match(await callRefused(mcp.client, `sandbox_${verb}`, { sandbox_id: 'sbx_nosuchsandbox' }), /No sandbox with id/);
    }
    assert.match(await callRefused(mcp.client, 'sandbox_land', {}), /sandbox_id/);
    assert.match(await callRefused(mcp.client, 'sandbox_list', { loop_id: 'loop_nosuchloop' }), /No loop with id 'loop_nosuchloop'/);
    const listByCli = await cli('sandbox', 'list', '--loop', 'loop_nosuchloop');
    assert.notEqual(listByCli.status, 0);
    assert.match(listByCli.stderr, /No loop with id 'loop_nosuchloop'/);

    const repo = tempGitRepo();
    const loopId = await loopWithSpecs(h.ctx, repo, committing('a.txt', 'a'), [{ name: 's' }]);
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId, { sandbox: true });
      assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    });
    const sandbox = await sandboxOf(loopId);
    const elsewhere = await openContext(loadConfig({ ...childEnv(h.config), CANOPY_HOST_ID: 'elsewhere' }));
    try {
      const refused = await refusal(landSandbox(elsewhere, sandbox.id));
      assert.match(refused.message, new RegExp(`is on host '${h.config.hostId}'.*run \`canopy sandbox land ${sandbox.id}\` there`));
    } finally {
      await elsewhere.close();
    }
    const byCli = await runCanopy({ ...childEnv(h.config), CANOPY_HOST_ID: 'elsewhere' }, 'sandbox', 'discard', sandbox.id);
    assert.notEqual(byCli.status, 0);
    assert.match(byCli.stderr, /is on host/);
    assert.equal((await sandboxOf(loopId)).status, 'active');
    assert.equal(existsSync(sandbox.path), true);
  });

  it('refuses a sandboxed run of a workdir that is no repository or has no commit, starting nothing', async () => {
    const plain = scratchDir();
    const empty = scratchDir();
    git(empty, 'init', '-q');
    for (const [workdir, problem] of [
      [plain, /is not inside a git repository/],
      [empty, /has no commit yet/],
    ] as const) {
      const loopId = await loopWithSpecs(h.ctx, workdir, committing('a.txt', 'a'), [{ name: 's' }]);
      const refused = await refusal(startLoopRun(h.ctx, loopId, { sandbox: true }));
      assert.equal(refused.code, 'invalid_input');
      assert.equal(refused.issues[0].field, 'sandbox');
      assert.match(refused.issues[0].message, problem);
      assert.match(refused.issues[0].message, /git init && git add -A && git commit\), or run without sandbox/);
      const byCli = await cli('loop', 'run', loopId, '--sandbox');
      assert.notEqual(byCli.status, 0);
      assert.match(byCli.stderr, /sandbox: needs the loop's workdir in a git repository with at least one commit/);
      assert.match(await callRefused(mcp.client, 'loop_run', { loop_id: loopId, sandbox: true }), /sandbox: needs the loop's workdir/);
      assert.equal((await getLoop(h.ctx.db, loopId))!.status, 'pending', 'no run started');
      assert.deepEqual(await listSandboxes(h.ctx.db, { loopId }), []);
    }
    const repo = tempGitRepo();
    const loopId = await loopWithSpecs(h.ctx, repo, committing('a.txt', 'a'), [{ name: 's' }]);
    assert.match(await callRefused(mcp.client, 'loop_run', { loop_id: loopId, sandbox: 'yes' }), /sandbox/);
    assert.equal((await getLoop(h.ctx.db, loopId))!.status, 'pending');
  });

  it('runs a loop whose workdir is below the top of its repository in the same directory of the worktree, made when git tracks none of it', async () => {
    const repo = tempGitRepo();
    mkdirSync(path.join(repo, 'app'));
    const loopId = await loopWithSpecs(h.ctx, path.join(repo, 'app'), committing('app.txt', 'a'), [{ name: 's' }]);
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId, { sandbox: true });
      assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    });
    const sandbox = await sandboxOf(loopId);
    const verify = (await runsOf(h.ctx, loopId)).find((run) => run.node_name === 'verify')!;
    assert.equal(verify.outcome, 'pass', 'the check ran in the sandbox, where {{workdir}} pointed');
    assert.ok(existsSync(path.join(sandbox.path, 'app', 'app.txt')), 'the committer wrote into the sandbox’s app/');
    await landSandbox(h.ctx, sandbox.id);
    assert.equal(git(repo, 'show', 'HEAD:app/app.txt'), 'a');
  });

  it('continues a failed sandboxed run in its own sandbox, keeping what it committed there', async () => {
    const repo = tempGitRepo();
    const flag = sharedFile(repo, 'fixed');
    const shape = committing('kept.txt', 'k');
    shape.nodes.push(check('gate', 3, `test -f ${flag} && test -f kept.txt`));
    shape.edges!.push({ source: 'verify', target: 'gate' });
    const loopId = await loopWithSpecs(h.ctx, repo, shape, [{ name: 's' }]);
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId, { sandbox: true });
      assert.equal((await waitForLoopRun(h.ctx, loopId)).failingNode, 'gate');
      writeFileSync(flag, '');
      assert.equal((await continueLoop(h.ctx, loopId)).resumed, 'new_run');
      assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'completed');
    });
    const sandbox = await sandboxOf(loopId);
    assert.equal(sandbox.loop_run_id, (await latestLoopRun(h.ctx.db, loopId))!.id, 'the continued run works in it now');
    assert.equal(sandbox.commits_ahead, 1);
    await discardSandbox(h.ctx, sandbox.id);
    assert.equal(branchesOf(repo), '');

    // A failed run whose sandbox is gone cannot go on there.
    const again = await loopWithSpecs(h.ctx, repo, shape, [{ name: 's' }]);
    rmSync(flag);
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, again, { sandbox: true });
      assert.equal((await waitForLoopRun(h.ctx, again)).failingNode, 'gate');
    });
    const dropped = await sandboxOf(again);
    await discardSandbox(h.ctx, dropped.id);
    const refused = await refusal(continueLoop(h.ctx, again));
    assert.match(
      refused.message,
      new RegExp(`failed in sandbox ${dropped.id}, which was discarded, so its run cannot go on there; reset it`),
    );
    assert.equal((await getLoop(h.ctx.db, again))!.status, 'failed');
  });
});
