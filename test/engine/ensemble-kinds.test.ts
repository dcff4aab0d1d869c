// Ensembles whose members take turns, on a real dev server: a cascade runs them one at a time until
// one passes and starts its next entry with the member that passed; a round_robin runs one member per
// entry, handing the turn on after a failure, including across a failed run continued with retry.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { continueLoop, startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import type { NodeRun } from '../../src/domain/node-run';
import { useEngineHarness } from '../helpers/engine';
import { agent, check, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';

const FAILS = { platform: 'fake', model: 'weak', prompt_override: '@print not this time\n@exit 1' };
const PASSES = { platform: 'fake', model: 'strong', prompt_override: '@print looks fine' };
const ALSO_PASSES = { platform: 'fake', model: 'backup', prompt_override: '@print fine too' };

/** implement → reviewers (pass → tests, fail → fixer); tests fail → fixer; fixer loops back to implement. Tests pass from round `passFrom`. */
function fixLoopThrough(kind: string, members: object[], passFrom: number) {
  return {
    nodes: [
      agent('implement', 1, '@print round {{round}}'),
      check('tests', 3, `test {{round}} -ge ${passFrom}`),
      agent('fixer', 4, '@print fixing'),
    ],
    edges: [
      { source: 'tests', target: 'fixer', condition: 'fail' },
      { source: 'fixer', target: 'implement', type: 'loopback' },
    ],
    ensembles: [
      {
        name: 'reviewers',
        kind,
        prompt_template: 'unused',
        members,
        timeout_minutes: 1,
        entry_from_node: 'implement',
        entry_condition: 'pass',
        on_pass_to: 'tests',
        on_fail_to: 'fixer',
      },
    ],
  };
}

/** implement → reviewers, the ensemble ending the spec. */
function implementThen(kind: string, members: object[]) {
  return {
    nodes: [agent('implement', 1, '@print done')],
    ensembles: [{ name: 'reviewers', kind, prompt_template: 'unused', members, timeout_minutes: 1, entry_from_node: 'implement' }],
  };
}

/** Who ran, oldest first, among the ensemble's members and its quorum. */
const ensembleRuns = (runs: NodeRun[]) =>
  runs.filter((run) => run.node_name.startsWith('reviewers/')).sort((a, b) => a.started_at.localeCompare(b.started_at));

const quorumDocuments = (runs: NodeRun[]) => ensembleRuns(runs).filter((run) => run.node_name === 'reviewers/quorum');

describe('ensemble kinds', () => {
  const h = useEngineHarness();

  it('a cascade runs one member at a time until one passes, and its next entry starts with the member that passed', async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), fixLoopThrough('cascade', [FAILS, PASSES, ALSO_PASSES], 2), [{ name: 'one' }]);
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed', result.reason ?? '');

    const runs = await runsOf(h.ctx, loopId);
    assert.deepEqual(
      ensembleRuns(runs).map((run) => `${run.node_name} ${run.outcome}`),
      ['reviewers/member-1 fail', 'reviewers/member-2 pass', 'reviewers/quorum pass', 'reviewers/member-2 pass', 'reviewers/quorum pass'],
    );
    const [first, second] = quorumDocuments(runs);
    assert.equal(first.reason, '1 of 2 members passed (min_pass 1).');
    assert.match(
      first.stdout,
      /^Cascade: fake\/weak \(reviewers\/member-1\) first, as the first member\. Ran fake\/weak \(reviewers\/member-1\) \[fail\], fake\/strong \(reviewers\/member-2\) \[pass\]\.\nNot run: fake\/backup \(reviewers\/member-3\) \(fake\/strong \(reviewers\/member-2\) passed before their turn\)\.\n/,
    );
    assert.deepEqual(
      first.stdout.split('\n').filter((line) => line.startsWith('## ')),
      ['## fake/weak [fail]', '## fake/strong [pass]'],
    );
    assert.match(second.stdout, /^Cascade: fake\/strong \(reviewers\/member-2\) first, as it passed the ensemble's last entry\./);
  });

  it('a cascade whose every member fails fails the ensemble, each member having run once', async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), implementThen('cascade', [FAILS, { ...FAILS, model: 'weaker' }]), [
      { name: 'one' },
    ]);
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'failed');
    const runs = await runsOf(h.ctx, loopId);
    assert.deepEqual(
      ensembleRuns(runs).map((run) => `${run.node_name} ${run.outcome}`),
      ['reviewers/member-1 fail', 'reviewers/member-2 fail', 'reviewers/quorum fail'],
    );
    assert.equal(quorumDocuments(runs)[0].reason, 'Only 0 of 2 members passed; min_pass is 1.');
  });

  it('a round_robin runs one member per entry: the next one after a failure, the same one again after a pass', async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), fixLoopThrough('round_robin', [FAILS, PASSES, ALSO_PASSES], 3), [
      { name: 'one' },
    ]);
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed', result.reason ?? '');

    const runs = await runsOf(h.ctx, loopId);
    const members = ensembleRuns(runs).filter((run) => run.node_name !== 'reviewers/quorum');
    assert.deepEqual(
      members.map((run) => `${run.node_name} round ${run.round} ${run.outcome}`),
      ['reviewers/member-1 round 1 fail', 'reviewers/member-2 round 2 pass', 'reviewers/member-2 round 3 pass'],
    );
    const documents = quorumDocuments(runs).map((run) => run.stdout.split('\n').slice(0, 2).join('\n'));
    assert.deepEqual(documents, [
      'Round robin: fake/weak (reviewers/member-1) first, as the first member. Ran fake/weak (reviewers/member-1) [fail].\n' +
        'Not run: fake/strong (reviewers/member-2), fake/backup (reviewers/member-3) (a round_robin runs one member per entry).',
      "Round robin: fake/strong (reviewers/member-2) first, as the member before it failed the ensemble's last entry. Ran fake/strong (reviewers/member-2) [pass].\n" +
        'Not run: fake/weak (reviewers/member-1), fake/backup (reviewers/member-3) (a round_robin runs one member per entry).',
      "Round robin: fake/strong (reviewers/member-2) first, as it passed the ensemble's last entry. Ran fake/strong (reviewers/member-2) [pass].\n" +
        'Not run: fake/weak (reviewers/member-1), fake/backup (reviewers/member-3) (a round_robin runs one member per entry).',
    ]);
  });

  it('a run that failed at a round_robin and is continued with retry gives the turn to the next member', async () => {
    const loopId = await loopWithSpecs(h.ctx, scratchDir(), implementThen('round_robin', [FAILS, PASSES]), [{ name: 'one' }]);
    await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      assert.equal((await waitForLoopRun(h.ctx, loopId)).status, 'failed');
      await continueLoop(h.ctx, loopId, 'retry');
      const continued = await waitForLoopRun(h.ctx, loopId);
      assert.equal(continued.status, 'completed', continued.reason ?? '');
    });
    const members = ensembleRuns(await runsOf(h.ctx, loopId)).filter((run) => run.node_name !== 'reviewers/quorum');
    assert.deepEqual(
      members.map((run) => `${run.node_name} ${run.outcome}`),
      ['reviewers/member-1 fail', 'reviewers/member-2 pass'],
    );
  });
});
