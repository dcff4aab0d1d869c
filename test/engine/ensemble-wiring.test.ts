// Ensembles wired like nodes, on a real dev server with the stand-in agent: one ensemble entered from
// two nodes within one spec's run, and two ensembles chained quorum to quorum with no node between.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useEngineHarness } from '../helpers/engine';
import { agent, check, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';

const pair = (prompt: string) => ({
  prompt_template: prompt,
  timeout_minutes: 1,
  members: [
    { platform: 'fake', model: 'a' },
    { platform: 'fake', model: 'b' },
  ],
});

describe('ensemble wiring', () => {
  const h = useEngineHarness();

  it('enters an ensemble from two nodes in one spec’s run: from the fixer in round 1, from the tests in round 2', async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        nodes: [
          check('tests', 1, 'echo "tests of round {{round}}"; test "{{round}}" = 2'),
          agent('fix', 2, '@print fixed in round {{round}}'),
          check('judge', 4, 'test "{{round}}" = 2'),
        ],
        edges: [
          { source: 'tests', target: 'fix', condition: 'fail' },
          { source: 'judge', target: 'tests', condition: 'fail', type: 'loopback' },
        ],
        ensembles: [
          {
            name: 'panel',
            ...pair('@print reviewed: {{previous_output}}'),
            entry_from: [
              { node: 'tests', condition: 'pass' },
              { node: 'fix', condition: 'pass' },
            ],
            on_pass_to: 'judge',
          },
        ],
      },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed', result.reason ?? '');
    const runs = await runsOf(h.ctx, loopId);
    assert.deepEqual(
      runs.filter((run) => !run.node_name.includes('/member-')).map((run) => `${run.node_name}:${run.round}:${run.outcome}`),
      ['tests:1:fail', 'fix:1:pass', 'panel/quorum:1:pass', 'judge:1:fail', 'tests:2:pass', 'panel/quorum:2:pass', 'judge:2:pass'],
    );
    const reviews = runs.filter((run) => run.node_name === 'panel/member-1').map((run) => run.stdout.trim());
    assert.equal(reviews.length, 2);
    assert.match(reviews[0], /^reviewed: fixed in round 1/, 'round 1 entered from fix');
    assert.match(reviews[1], /^reviewed: tests of round 2/, 'round 2 entered from tests');
    assert.equal(runs.filter((run) => run.node_name.startsWith('panel/member-')).length, 4);
  });

  it('runs two ensembles chained quorum to quorum, with no node between them', async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        nodes: [agent('draft', 1, '@print draft'), check('ship', 9, 'printf "%s" "{{previous_output}}" | grep -c "^## "')],
        ensembles: [
          { name: 'drafters', ...pair('@print drafted'), entry_from: [{ node: 'draft' }], on_pass_to: { ensemble: 'reviewers' } },
          { name: 'reviewers', ...pair('@print reviewed'), on_pass_to: 'ship' },
        ],
      },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed', result.reason ?? '');
    const runs = await runsOf(h.ctx, loopId);
    const ended = (name: string) => runs.find((run) => run.node_name === name)!;
    assert.deepEqual(runs.map((run) => `${run.node_name}:${run.outcome}`).sort(), [
      'draft:pass',
      'drafters/member-1:pass',
      'drafters/member-2:pass',
      'drafters/quorum:pass',
      'reviewers/member-1:pass',
      'reviewers/member-2:pass',
      'reviewers/quorum:pass',
      'ship:pass',
    ]);
    assert.ok(
      ended('drafters/quorum').ended_at! <= ended('reviewers/member-1').started_at,
      'the second ensemble starts after the first’s quorum',
    );
    assert.ok(ended('reviewers/quorum').ended_at! <= ended('ship').started_at);
    assert.equal(ended('ship').stdout.trim(), '2', 'ship read the second quorum’s document, one section per member');
  });
});
