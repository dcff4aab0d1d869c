// Isolated ensemble members on a real dev server and a real git repository: each member works in a
// worktree of its own made from HEAD plus the workdir's uncommitted changes, the quorum document
// carries each member's diff, the workdir is left exactly as it was, a member committing without
// rights fails alone, and a failed run keeps the worktrees for a continue to rerun the members in.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { updateEnsemble } from '../../src/client/graph-service';
import { continueLoop, waitForLoopRun } from '../../src/client/runs-service';
import type { NodeRun } from '../../src/domain/node-run';
import { useEngineHarness } from '../helpers/engine';
import { git, headOf, tempGitRepo } from '../helpers/git';
import { agent, loopWithSpecs, runToEnd, runsOf, scratchDir, type LoopShape } from '../helpers/loops';

/** A repository whose tree differs from HEAD: a changed tracked file and an untracked one. */
function dirtyRepository(): string {
  const repo = tempGitRepo();
  writeFileSync(path.join(repo, 'proposal.txt'), 'original\n');
  git(repo, 'add', 'proposal.txt');
  git(repo, 'commit', '-q', '-m', 'proposal');
  writeFileSync(path.join(repo, 'README.md'), '# test repo, edited by hand\n');
  writeFileSync(path.join(repo, 'notes.txt'), 'not committed yet\n');
  return repo;
}

/** Three members writing their own version of proposal.txt (the third also commits it), then an arbiter that may commit. */
function drafting(minPass: number): LoopShape {
  return {
    nodes: [agent('arbiter', 2, '@print judged\n{{previous_feedback}}', { commit_rights: true })],
    ensembles: [
      {
        name: 'drafters',
        prompt_template: '@print unused',
        isolation: 'worktree',
        min_pass: minPass,
        on_pass_to: 'arbiter',
        position: 1,
        members: [
          { platform: 'fake', prompt_override: '@write proposal.txt alpha\\n\n@print drafted alpha' },
          { platform: 'fake', prompt_override: '@write proposal.txt beta\\n\n@print drafted beta' },
          { platform: 'fake', prompt_override: '@write proposal.txt gamma\\n\n@commit gamma' },
        ],
      },
    ],
  };
}

const named = (runs: NodeRun[], name: string) => runs.filter((run) => run.node_name === name);

function snapshot(repo: string) {
  return {
    head: headOf(repo),
    status: git(repo, 'status', '--porcelain'),
    proposal: readFileSync(path.join(repo, 'proposal.txt'), 'utf8'),
    worktrees: git(repo, 'worktree', 'list', '--porcelain'),
  };
}

describe('isolated ensemble members', () => {
  const h = useEngineHarness();
  const worktreesOf = (loopId: string) => path.join(h.config.home, 'member-worktrees', loopId);

  it('work each in a worktree of their own; the quorum holds their diffs, the workdir is untouched, a commit without rights fails alone', async () => {
    const repo = dirtyRepository();
    const before = snapshot(repo);
    const loopId = await loopWithSpecs(h.ctx, repo, drafting(2), [{ name: 'draft' }]);

    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));

    assert.equal(result.status, 'completed', JSON.stringify(result));
    assert.deepEqual(snapshot(repo), before, 'the workdir, its HEAD, its uncommitted changes and its worktrees are as they were');
    const runs = await runsOf(h.ctx, loopId);
    assert.deepEqual(
      [1, 2, 3].map((n) => named(runs, `drafters/member-${n}`).map((run) => [run.outcome, run.failure_kind])),
      [[['pass', null]], [['pass', null]], [['fail', 'commit_rights']]],
    );
    assert.match(named(runs, 'drafters/member-3')[0].reason ?? '', /committed but has no commit rights/);

    const [quorum] = named(runs, 'drafters/quorum');
    assert.equal(quorum.outcome, 'pass');
    const sections = quorum.stdout.split(/^## /m).slice(1);
    assert.equal(sections.length, 3, quorum.stdout);
    for (const [index, word] of ['alpha', 'beta', 'gamma'].entries()) {
      assert.match(sections[index], /### Its changes \(against the starting tree\)/);
      assert.match(sections[index], new RegExp(`-original\\n\\+${word}`), `member ${index + 1}'s diff is under its section`);
      // Each worktree started from the workdir's tree: its uncommitted edit and untracked file are no change there.
      assert.doesNotMatch(sections[index], /notes\.txt|README\.md/);
    }
    const [arbiter] = named(runs, 'arbiter');
    for (const word of ['alpha', 'beta', 'gamma']) assert.match(arbiter.input, new RegExp(`\\+${word}`), 'the arbiter sees every proposal');
    assert.equal(existsSync(worktreesOf(loopId)) ? readdirSync(worktreesOf(loopId)).length : 0, 0, 'the worktrees were removed');
  });

  it('keeps the worktrees of a failed quorum, and a continue reruns the members in them', async () => {
    const repo = dirtyRepository();
    const before = snapshot(repo);
    const loopId = await loopWithSpecs(h.ctx, repo, drafting(3), [{ name: 'draft' }]);

    await h.withWorker(async () => {
      const failed = await runToEnd(h.ctx, loopId);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.failingNode, 'drafters');
      const [kept] = readdirSync(worktreesOf(loopId));
      const firstMember = path.join(worktreesOf(loopId), kept, '0');
      assert.equal(readFileSync(path.join(firstMember, 'proposal.txt'), 'utf8'), 'alpha\n', 'the failed run left member 1 its work');
      // Work left in member 1's worktree shows in its diff after the continue: the member ran in the same tree.
      writeFileSync(path.join(firstMember, 'left-over.txt'), 'from the failed run\n');

      await updateEnsemble(h.ctx, { loop_id: loopId, name: 'drafters', min_pass: 2 });
      await continueLoop(h.ctx, loopId, 'retry');
      const continued = await waitForLoopRun(h.ctx, loopId);
      assert.equal(continued.status, 'completed', JSON.stringify(continued));
    });

    const quorums = named(await runsOf(h.ctx, loopId), 'drafters/quorum');
    assert.equal(quorums.length, 2);
    const firstSection = quorums[1].stdout.split(/^## /m)[1];
    assert.match(firstSection, /\+from the failed run/);
    assert.match(firstSection, /\+alpha/);
    assert.deepEqual(snapshot(repo), before);
    assert.equal(existsSync(worktreesOf(loopId)) ? readdirSync(worktreesOf(loopId)).length : 0, 0);
  });

  it('fails the run naming isolation when the workdir is not a git repository, and changes nothing there', async () => {
    const workdir = scratchDir();
    const loopId = await loopWithSpecs(h.ctx, workdir, drafting(2), [{ name: 'draft' }]);
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'failed');
    assert.match(
      result.reason ?? '',
      /isolation "worktree", which needs the workdir in a git repository.*or set its isolation to "shared"/,
    );
    assert.deepEqual(readdirSync(workdir), []);
  });
});
