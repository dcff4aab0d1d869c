// Resume with the real agent CLIs against the stand-in model: in a two-round fix loop a `resume: true` node's
// second round continues its first round's session (the stand-in is sent round 1's turns again, and a new user
// turn that is the resume prompt), and a session the CLI no longer has is given up for a cold start that says why.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import type { NodeRun } from '../../src/domain/node-run';
import { listSpecs } from '../../src/store/specs-repository';
import { insertNodeRun } from '../../src/store/node-runs-repository';
import {
  FEEDBACK_MARK,
  FULL_PROMPT_MARK,
  implementLoop,
  NOTES_MARK,
  missingClis,
  REAL_CLIS,
  reportsPass,
  useRealCliWorker,
  type RealCliSetup,
} from '../helpers/agent-clis';
import { childEnv } from '../helpers/engine';
import { check, loopWithSpecs, runsOf, scratchDir } from '../helpers/loops';
import { runCanopy } from '../helpers/processes';
import { isModelRequest, newestUserTurn, type LoggedRequest } from '../helpers/model-api';

const skip = !process.env.CANOPY_TEST_TEMPORAL_ADDRESS ? 'needs the dev server that `npm test` starts' : missingClis();

async function runToEnd(setup: RealCliSetup, loopId: string) {
  await startLoopRun(setup.ctx, loopId);
  const result = await waitForLoopRun(setup.ctx, loopId);
  const runs = (await runsOf(setup.ctx, loopId)).filter((run) => run.node_name === 'implement');
  return { result, runs };
}

function told(runs: NodeRun[]): string {
  return runs
    .map((run) => `${run.outcome} ${run.failure_kind ?? ''}: ${run.reason ?? ''} ${run.cold_start_reason ?? ''}\n${run.stderr}`)
    .join('\n');
}

/** The model requests offering tools (the agent's turns, not titles or probes) that `mark` appears in. */
const turnsNaming = (requests: LoggedRequest[], mark: string) =>
  requests.filter((request) => isModelRequest(request) && JSON.stringify(request.body).includes(mark) && offersTools(request));

function offersTools(request: LoggedRequest): boolean {
  const body = request.body as { tools?: unknown[] };
  return Array.isArray(body.tools) && body.tools.length > 0;
}

describe('real agent CLIs resume their session on a loop-back', { skip }, () => {
  const serving = useRealCliWorker();

  for (const cli of REAL_CLIS) {
    it(`${cli}: round 2 of a fix loop continues round 1's session, told only the resume prompt`, async () => {
      const setup = serving.setup();
      const { loopId, notes } = await implementLoop(setup, cli, { fixLoop: true, resume: true, notes: true });
      setup.api.script(reportsPass(cli, notes));
      const from = setup.api.requests.length;
      const { result, runs } = await runToEnd(setup, loopId);
      assert.equal(result.status, 'completed', told(runs));
      const [first, second] = runs;
      assert.equal(runs.length, 2, told(runs));
      assert.deepEqual([first.resumed, first.cold_start_reason], [false, 'no earlier run of this node in this spec recorded a session']);
      assert.ok(first.session_id, `${cli} reported its session`);
      assert.deepEqual([second.resumed, second.cold_start_reason, second.session_id], [true, null, first.session_id], told(runs));
      assert.match(second.input, new RegExp(FEEDBACK_MARK));
      assert.doesNotMatch(second.input, new RegExp(FULL_PROMPT_MARK), 'round 2 is told the resume prompt, not the full prompt');

      const requests = setup.api.requests.slice(from);
      const [roundOne] = turnsNaming(requests, FULL_PROMPT_MARK);
      const [roundTwo] = turnsNaming(requests, FEEDBACK_MARK);
      assert.ok(roundTwo, 'the stand-in was asked in round 2');
      assert.ok(JSON.stringify(roundTwo.body).includes(FULL_PROMPT_MARK), "round 2's request carries round 1's turns");
      assert.ok(JSON.stringify(roundTwo.body).includes(`${cli} implemented it`), "and round 1's report through the tool");
      // The model reads the notes the task names in round 1; resumed, its conversation holds them, so it does not again.
      const reads = (round: LoggedRequest[]) =>
        round.filter((request) => request.calledTool && !request.calledTool.endsWith('complete_node'));
      assert.equal(
        reads(turnsNaming(requests, FULL_PROMPT_MARK).filter((request) => !turnsNaming([request], FEEDBACK_MARK).length)).length,
        1,
      );
      assert.ok(JSON.stringify(roundTwo.body).includes(NOTES_MARK), 'round 2 carries the notes round 1 read');
      assert.deepEqual(reads(turnsNaming(requests, FEEDBACK_MARK)), [], 'and does not read them again');
      const newest = newestUserTurn(roundTwo) ?? '';
      assert.match(newest, new RegExp(FEEDBACK_MARK), 'its new user turn is the resume prompt');
      assert.doesNotMatch(newest, new RegExp(FULL_PROMPT_MARK));
      // The usage recorded is what the stand-in counted for round 2, which it sent round 1's turns again.
      assert.ok(roundTwo.inputTokens! > roundOne.inputTokens!, 'round 2 sent more than round 1 began with');
      assert.ok((second.input_tokens ?? 0) >= roundTwo.inputTokens!, `round 2 recorded ${second.input_tokens} input tokens`);
      const roundTwoCounted = turnsNaming(requests, FEEDBACK_MARK).reduce((sum, request) => sum + request.inputTokens!, 0);
      assert.ok((second.input_tokens ?? 0) <= roundTwoCounted, `and not round 1's again (round 2 sent ${roundTwoCounted})`);
      // The part of it the stand-in read from its prompt cache, which each CLI reports in its own field.
      const roundTwoCached = turnsNaming(requests, FEEDBACK_MARK).map((request) => request.cachedInputTokens!);
      const [mostCached, allCached] = [Math.max(...roundTwoCached), roundTwoCached.reduce((sum, tokens) => sum + tokens, 0)];
      assert.ok(mostCached > 0, 'round 2 read the turns it repeated from the prompt cache');
      const recordedCached = second.cached_input_tokens ?? 0;
      assert.ok(recordedCached >= mostCached && recordedCached <= allCached, `round 2 recorded ${recordedCached} of them cached`);
      const shown = await runCanopy(childEnv(setup.config), 'loop', 'run-get', second.id);
      assert.match(shown.stdout, new RegExp(`^session ${first.session_id}, resumed$`, 'm'), shown.stderr);
      assert.match(shown.stdout, new RegExp(` ${second.input_tokens} tokens in \\(${recordedCached} cached\\), `));
      const listed = await runCanopy(childEnv(setup.config), 'loop', 'runs', loopId);
      assert.match(listed.stdout, new RegExp(`${second.id} +implement +2 +pass .* ${cli}/[^ ]+, resumed `), listed.stderr);
    });

    it(`${cli}: a session the CLI no longer has is given up for a cold start with the full prompt, saying why`, async () => {
      const setup = serving.setup();
      setup.api.script(reportsPass(cli));
      const { loopId, workdir } = await implementLoop(setup, cli, { fixLoop: false, resume: true });
      const [spec] = await listSpecs(setup.ctx.db, { loopId });
      const lost = cli === 'opencode' ? 'ses_0000000000000000000000000' : '00000000-0000-4000-8000-000000000000';
      await insertNodeRun(setup.ctx.db, {
        loop_id: loopId,
        spec_id: spec.id,
        node_name: 'implement',
        kind: 'agent',
        round: 1,
        status: 'pass',
        executed_platform: cli,
        executed_host: setup.config.hostId,
        session_id: lost,
        session_workdir: workdir,
        started_at: new Date(Date.now() - 60_000).toISOString(),
      });
      const { result, runs } = await runToEnd(setup, loopId);
      assert.equal(result.status, 'completed', told(runs));
      const first = runs.find((run) => run.session_id !== lost)!;
      assert.equal(runs.length, 2, 'the planted run and the one that ran');
      assert.equal(first.resumed, false);
      assert.match(first.cold_start_reason ?? '', new RegExp(`^${cli} could not continue session ${lost}: `), told(runs));
      assert.match(first.input, new RegExp(FULL_PROMPT_MARK), 'the cold start is given the full prompt');
      assert.equal(first.outcome, 'pass', told(runs));
      const shown = await runCanopy(childEnv(setup.config), 'loop', 'run-get', first.id);
      assert.match(
        shown.stdout,
        new RegExp(`^session ${first.session_id}, started cold: ${cli} could not continue session ${lost}: `, 'm'),
      );
    });
  }

  it("ensemble members continue their own passed sessions on the bounce-back; a member's resume: false starts cold", async () => {
    const setup = serving.setup();
    setup.api.script(reportsPass('claude'));
    const tests = `test -f .tested && exit 0; touch .tested; echo "${FEEDBACK_MARK}"; exit 1`;
    const loopId = await loopWithSpecs(
      setup.ctx,
      scratchDir(),
      {
        nodes: [check('prepare', 1, 'true'), check('tests', 2, tests)],
        edges: [{ source: 'tests', target: 'prepare', condition: 'fail', type: 'loopback' }],
        ensembles: [
          {
            name: 'reviewers',
            prompt_template: `${FULL_PROMPT_MARK} {{spec_name}}.\n{{previous_feedback}}`,
            entry_from_node: 'prepare',
            entry_condition: 'pass',
            on_pass_to: 'tests',
            timeout_minutes: 2,
            members: [{ platform: 'claude' }, { platform: 'codex', resume: false }],
          },
        ],
      },
      [{ name: 'the spec' }],
    );
    await startLoopRun(setup.ctx, loopId);
    const result = await waitForLoopRun(setup.ctx, loopId);
    const runs = await runsOf(setup.ctx, loopId);
    const ofMember = (name: string) => runs.filter((run) => run.node_name === `reviewers/${name}`);
    assert.equal(result.status, 'completed', told(runs));
    const [[claudeFirst, claudeSecond], [codexFirst, codexSecond]] = [ofMember('member-1'), ofMember('member-2')];
    assert.ok(claudeSecond && codexSecond, `both members ran twice: ${told(runs)}`);
    assert.deepEqual([claudeSecond.resumed, claudeSecond.session_id], [true, claudeFirst.session_id], told(runs));
    assert.doesNotMatch(claudeSecond.input, new RegExp(FULL_PROMPT_MARK), 'the resumed member is told the resume prompt');
    assert.deepEqual([codexSecond.resumed, codexSecond.cold_start_reason], [false, null], told(runs));
    assert.notEqual(codexSecond.session_id, codexFirst.session_id, 'the member with resume: false began a session of its own');
    assert.match(codexSecond.input, new RegExp(FULL_PROMPT_MARK), 'and was given the full prompt');
  });
});
