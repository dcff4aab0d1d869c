// The real agent CLIs, installed by `npm run setup:agents`, driven through canopy against the stand-in
// model API, as CI runs them (root included): each one reports over canopy's MCP server for its run,
// fails, blocks, hits a usage limit, hangs; canopy records what it used. The worker is a `canopy worker`
// process here, so the agents' callback is the endpoint that worker serves.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import type { ClientContext } from '../../src/client/context';
import { autorunScheduleId } from '../../src/client/autorun-service';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import type { CanopyConfig } from '../../src/config';
import { QUOTA_RESUME_MARGIN_MS } from '../../src/agents/reset-time';
import { loadPlatforms } from '../../src/agents';
import { getLoop } from '../../src/store/loops-repository';
import { loopStatus } from '../../src/client/loop-status-service';
import { listRuns } from '../../src/client/node-runs-service';
import { describeStatus } from '../../src/cli/text/loop-status';
import {
  REAL_CLIS,
  missingClis,
  runOneAgent,
  UNDER_USER_HOME,
  useRealCliWorker,
  type RealCli,
  type RealCliSetup,
} from '../helpers/agent-clis';
import { childEnv } from '../helpers/engine';
import { check, loopWithSpecs, runsOf, scratchDir, untilLoopStatus } from '../helpers/loops';
import { OUTPUT_TOKENS, type ModelApi, type ModelScript } from '../helpers/model-api';
import { runCanopy, statFields } from '../helpers/processes';
import { tempGitRepo } from '../helpers/git';
import { livePidsWhere } from '../helpers/running-processes';
import { waitUntil } from '../helpers/wait';
import type { NodeRun } from '../../src/domain/node-run';
import { temporal } from '@temporalio/proto';
import { loopWorkflowId } from '../../src/contract';

const skip = !process.env.CANOPY_TEST_TEMPORAL_ADDRESS ? 'needs the dev server that `npm test` starts' : missingClis();
/** Quota messages that say when the limit lifts; opencode waits out a 429 itself and claude's API-key 429 names no time. */
const RESET_TIME_IN_MESSAGE: Record<RealCli, boolean> = { claude: false, codex: true, opencode: false, gemini: true };

/** What a node run ended with and what its CLI printed, for a failed assertion's message. */
function told(run: NodeRun): string {
  return `${run.outcome} ${run.failure_kind ?? ''}: ${run.reason ?? ''}\n${run.stdout}\n${run.stderr}`;
}

/** A require_report node whose prompt never mentions reporting, against a stand-in that reports only when told to. */
async function hearsHowToReport(setup: RealCliSetup, cli: RealCli): Promise<void> {
  const { result, run } = await runOneAgent(
    setup,
    cli,
    {
      action: { kind: 'tool', tool: 'loop_complete_node', args: { status: 'pass', output: 'fixed it' } },
      final: 'Fixed.',
      strict: true,
    },
    { prompt_template: 'Fix the failing test described here: {{spec_name}}.' },
  );
  assert.equal(result.status, 'completed', told(run));
  assert.deepEqual([run.outcome, run.reported_status, run.reported_output], ['pass', 'pass', 'fixed it'], told(run));
}

describe('real agent CLIs through a `canopy worker`', { skip }, () => {
  const serving = useRealCliWorker();
  let setup: RealCliSetup;
  let api: ModelApi;
  let config: CanopyConfig;
  let ctx: ClientContext;

  before(() => {
    setup = serving.setup();
    ({ api, config, ctx } = setup);
    // The shape of a CI or container home, below a world-writable directory (gemini skips system settings there).
    assert.ok(statSync(path.dirname(path.dirname(config.home))).mode & 0o002, `${config.home} is below a world-writable directory`);
  });

  /** The agent with one infra retry and an error edge to a check that handles its failure. */
  async function startWithErrorEdge(cli: RealCli) {
    const shape = {
      settings: { infra_retries: 1, infra_backoff_seconds: 1 },
      nodes: [
        { name: 'work', kind: 'agent', position: 1, config: { platform: cli, prompt_template: 'Do {{spec_name}}.', timeout_minutes: 1 } },
        check('handler', 2, 'echo handled'),
      ],
      edges: [{ source: 'work', target: 'handler', condition: 'error' }],
    };
    const loopId = await loopWithSpecs(ctx, scratchDir(), shape, [{ name: 'the spec' }]);
    await startLoopRun(ctx, loopId);
    return { loopId, done: waitForLoopRun(ctx, loopId) };
  }

  async function runWithErrorEdge(cli: RealCli) {
    const { loopId, done } = await startWithErrorEdge(cli);
    return { loopId, result: await done };
  }

  /**
   * `waitUntil` for something in loop `loopId`, saying where its node runs and its workflow stood if it never
   * came. Its deadline is past the agent node's own 1-minute timeout, which ends a run that never gets there:
   * a machine busy with other test files slows an agent run several times over.
   */
  async function untilInLoop<T>(loopId: string, what: string, probe: () => Promise<T | undefined | null | false>): Promise<T> {
    try {
      return await waitUntil(what, probe, 90_000);
    } catch (error) {
      const runs = (await runsOf(ctx, loopId)).map((r) => [r.node_name, r.pgid, r.ended_at, r.outcome, r.failure_kind, r.reason, r.stderr]);
      const workflow = (await ctx.temporal()).workflow.getHandle(loopWorkflowId(loopId));
      const history = await workflow.fetchHistory();
      const pending = ((await workflow.describe()).raw.pendingActivities ?? []).map(
        (a) => `${a.activityType?.name} attempt ${a.attempt}, last failure: ${a.lastFailure?.message ?? 'none'}`,
      );
      const events = (history.events ?? []).map((e) => {
        const at = new Date(Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6).toISOString().slice(11);
        return `${at} ${temporal.api.enums.v1.EventType[e.eventType ?? 0]}`;
      });
      throw new Error(
        `${(error as Error).message}; the model API holds ${api.hanging()} hanging requests; node runs ${JSON.stringify(runs, null, 1)}; workflow ${events.join(', ')}; pending ${pending.join('; ') || 'none'}`,
        { cause: error },
      );
    }
  }

  /** A blocked loop waits for a human: the test waits for the block, then ends the run. */
  async function runUntilBlocked(cli: RealCli, script: ModelScript) {
    api.script(script);
    const node = {
      name: 'work',
      kind: 'agent',
      position: 1,
      config: { platform: cli, prompt_template: 'Ask for help.', timeout_minutes: 1 },
    };
    const loopId = await loopWithSpecs(ctx, scratchDir(), { nodes: [node] }, [{ name: 'the spec' }]);
    await startLoopRun(ctx, loopId);
    await untilInLoop(loopId, 'the loop to block', async () => (await getLoop(ctx.db, loopId))!.status === 'blocked');
    const run = await untilInLoop(loopId, 'the node run to end', async () => (await runsOf(ctx, loopId)).find((r) => r.ended_at));
    await (await ctx.temporal()).workflow.getHandle(loopWorkflowId(loopId)).terminate('test done');
    return run;
  }

  // The shell fallback: the CLI's own shell tool runs `canopy node complete`, found on PATH (the run's shim)
  // even where the CLI's shell would be a login shell that resets PATH (codex).
  const SHELL_TOOLS = { claude: { tool: 'Bash', arg: 'command' }, codex: { tool: 'exec_command', arg: 'cmd' } } as const;
  for (const [cli, shell] of Object.entries(SHELL_TOOLS) as [RealCli, (typeof SHELL_TOOLS)['claude' | 'codex']][]) {
    it(`${cli}: \`canopy node complete\` from its shell tool reaches the worker with the run token alone`, async () => {
      const { result, run } = await runOneAgent(setup, cli, {
        action: { kind: 'tool', tool: shell.tool, args: { [shell.arg]: 'canopy node complete --status pass --output from-the-shell' } },
        final: 'Reported from the shell.',
      });
      assert.equal(result.status, 'completed', told(run));
      assert.deepEqual([run.reported_status, run.reported_output], ['pass', 'from-the-shell']);
    });
  }

  for (const cli of REAL_CLIS) {
    it(`${cli}: reports pass through loop_complete_node over MCP; platform, model and tokens are recorded`, async () => {
      // In a repository, as a user's workdir is.
      const script: ModelScript = {
        action: { kind: 'tool', tool: 'loop_complete_node', args: { status: 'pass', output: `${cli} did the spec` } },
        final: 'All done.',
      };
      const { loopId, result, run, ms } = await runOneAgent(setup, cli, script, {}, tempGitRepo());
      assert.equal(result.status, 'completed', told(run));
      assert.deepEqual(
        [run.outcome, run.reported_status, run.reported_output, run.unreported],
        ['pass', 'pass', `${cli} did the spec`, false],
        told(run),
      );
      assert.equal(run.executed_platform, cli);
      assert.ok(run.executed_model, 'a model is recorded');
      assert.ok((run.input_tokens ?? 0) > 0, `input tokens: ${run.input_tokens}`);
      assert.ok((run.output_tokens ?? 0) >= OUTPUT_TOKENS, `output tokens: ${run.output_tokens}`);
      assert.match(run.stdout, /All done\./, 'the final message is the output');
      const [listed] = await listRuns(ctx, { loop_id: loopId });
      assert.deepEqual(listed.agent, {
        platform: cli,
        model: run.executed_model,
        input_tokens: run.input_tokens,
        cached_input_tokens: run.cached_input_tokens,
        output_tokens: run.output_tokens,
        cost_usd: run.cost_usd,
        session_id: run.session_id,
        resumed: false,
        cold_start_reason: null,
      });
      assert.match(
        describeStatus(await loopStatus(ctx, loopId)),
        new RegExp(`agents +1 runs, ${run.input_tokens} tokens in, ${run.output_tokens} out`),
      );
      console.log(`# ${cli}: one node run against the stand-in took ${ms} ms`);
      if (cli === 'opencode') {
        const dataHome = loadPlatforms(config.home).get('opencode')!.settings.env.XDG_DATA_HOME;
        assert.ok(!existsSync(path.join(dataHome, 'opencode', 'snapshot')), 'opencode copied no workdir for snapshots');
      }
    });

    it(`${cli}: hears how to report from canopy alone, with a task prompt that never mentions reporting`, () =>
      hearsHowToReport(setup, cli));

    it(`${cli}: a report of fail fails the node with the agent's output`, async () => {
      const { result, run } = await runOneAgent(setup, cli, {
        action: { kind: 'tool', tool: 'loop_complete_node', args: { status: 'fail', output: 'tests still fail' } },
        final: 'Reported.',
      });
      assert.equal(result.status, 'failed');
      assert.deepEqual([run.outcome, run.failure_kind, run.reported_output], ['fail', 'reported_fail', 'tests still fail'], told(run));
    });

    it(`${cli}: loop_report_blocker blocks the loop`, async () => {
      const run = await runUntilBlocked(cli, {
        action: { kind: 'tool', tool: 'loop_report_blocker', args: { reason: 'needs the API key' } },
        final: 'Asked a human.',
      });
      assert.match(run.stdout, /Asked a human\./, told(run));
    });

    it(
      `${cli}: a usage-limit answer fails the node as quota${RESET_TIME_IN_MESSAGE[cli] ? ' and schedules the autorun' : ''}`,
      {
        skip: cli === 'opencode' && 'opencode retries a 429 itself for as long as the provider says (the node then times out)',
      },
      async () => {
        const resetAt = new Date(Date.now() + 3 * 3600_000);
        const { loopId, result, run } = await runOneAgent(setup, cli, { action: { kind: 'quota', resetAt }, final: '' });
        assert.equal(result.status, 'failed');
        assert.equal(run.failure_kind, 'quota', told(run));
        const client = await ctx.temporal();
        const handle = client.schedule.getHandle(autorunScheduleId(loopId));
        if (!RESET_TIME_IN_MESSAGE[cli]) {
          await assert.rejects(handle.describe(), 'no reset time, no autorun');
          return;
        }
        const at = Date.parse(/resumes by itself at (\S+)\.$/.exec(run.reason ?? '')?.[1] ?? '');
        // codex prints minutes only; gemini the seconds to wait.
        assert.ok(Math.abs(at - (resetAt.getTime() + QUOTA_RESUME_MARGIN_MS)) < 61_000, `${run.reason} vs ${resetAt.toISOString()}`);
        const calendar = (await handle.describe()).spec.calendars?.[0];
        assert.equal(calendar?.hour?.[0]?.start, new Date(at).getUTCHours());
        const status = await loopStatus(ctx, loopId);
        assert.equal(status.autorun_at, new Date(at).toISOString());
        assert.match(describeStatus(status), /resumes by itself at \S+ \(autorun\)/);
        await handle.delete();
      },
    );

    it(`${cli}: an overloaded provider is an infra outage: retried after its backoff, then down the error edge`, async () => {
      api.script({ action: { kind: 'overloaded' }, final: '' });
      const { loopId, result } = await runWithErrorEdge(cli);
      assert.equal(result.status, 'completed', result.reason ?? '');
      const runs = await runsOf(ctx, loopId);
      const work = runs.filter((run) => run.node_name === 'work');
      assert.deepEqual(
        work.map((run) => run.failure_kind),
        ['infra_outage', 'infra_outage'],
        work.map(told).join('\n---\n'),
      );
      assert.match(work[0].reason ?? '', /overloaded|5\d\d/i);
      assert.deepEqual(
        runs.filter((run) => run.node_name === 'handler').map((run) => run.outcome),
        ['pass'],
      );
    });

    it(`${cli}: killed by a signal, it runs again after its backoff, then takes the error edge`, async () => {
      api.script({ action: { kind: 'hang' }, final: '' });
      const { loopId, done } = await startWithErrorEdge(cli);
      for (const attempt of [1, 2]) {
        const pgid = await untilInLoop(loopId, `attempt ${attempt} to wait on the model`, async () => {
          const run = (await runsOf(ctx, loopId)).filter((r) => r.node_name === 'work')[attempt - 1];
          return run?.pgid && api.hanging() > 0 ? run.pgid : undefined;
        });
        if (cli === 'gemini') {
          // bwrap, confining it, names it in its own argv.
          const geminis = groupMembers(pgid).filter(
            (argv) => !argv[0].endsWith('/bwrap') && argv.some((arg) => /\/gemini(\.js)?$/.test(arg)),
          );
          assert.equal(geminis.length, 1, `gemini runs as one process, not relaunched: ${JSON.stringify(geminis)}`);
        }
        killGroupMembers(pgid, 'SIGKILL');
        await untilInLoop(
          loopId,
          `attempt ${attempt} to end`,
          async () => (await runsOf(ctx, loopId)).filter((r) => r.ended_at).length >= attempt,
        );
      }
      const result = await done;
      assert.equal(result.status, 'completed', result.reason ?? '');
      const runs = await runsOf(ctx, loopId);
      assert.deepEqual(
        runs.map((run) => [run.node_name, run.failure_kind]),
        [
          ['work', 'infra_signal'],
          ['work', 'infra_signal'],
          ['handler', null],
        ],
      );
      assert.match(runs[0].reason ?? '', /SIGKILL/);
    });

    it(`${cli}: the prompt and its spec text reach the CLI on standard input, in no process's argv, which another user's ps shows`, async () => {
      const secret = `planted-secret-${randomBytes(8).toString('hex')}`;
      api.script({ action: { kind: 'hang' }, final: '' });
      const node = {
        name: 'work',
        kind: 'agent',
        position: 1,
        config: { platform: cli, prompt_template: 'Do this: {{spec_content}}', timeout_minutes: 1 },
      };
      const loopId = await loopWithSpecs(ctx, scratchDir(), { nodes: [node] }, [
        { name: 'the spec', content: `The password is ${secret}.` },
      ]);
      await startLoopRun(ctx, loopId);
      const pgid = await untilInLoop(loopId, 'the CLI to wait on the model', async () => {
        const [run] = await runsOf(ctx, loopId);
        return run?.pgid && api.hanging() > 0 ? run.pgid : undefined;
      });
      try {
        assert.ok(
          api.requests.some((request) => JSON.stringify(request.body).includes(secret)),
          'the CLI read the prompt and sent it to the model',
        );
        const showing = livePidsWhere((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(secret));
        assert.deepEqual(
          showing,
          [],
          `processes with the secret in argv: ${showing.map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8')).join('; ')}`,
        );
        if (process.getuid?.() === 0) {
          const ps = spawnSync('su', ['nobody', '-s', '/bin/sh', '-c', 'ps -eo args'], { encoding: 'utf8' });
          assert.equal(ps.status, 0, ps.stderr);
          assert.match(ps.stdout, new RegExp(`${cli}`), 'the other user sees the CLI run');
          assert.ok(!ps.stdout.includes(secret), 'the other user does not see the secret');
        }
      } finally {
        await (await ctx.temporal()).workflow.getHandle(loopWorkflowId(loopId)).terminate('test done');
        killGroupMembers(pgid, 'SIGKILL');
      }
    });

    it(`${cli}: a hung CLI is killed at its timeout with no process left behind`, async () => {
      const { result, run, workdir, ms } = await runOneAgent(setup, cli, { action: { kind: 'hang' }, final: '' }, { timeout_minutes: 0.1 });
      assert.equal(result.status, 'failed');
      assert.equal(run.failure_kind, 'timeout', run.reason ?? '');
      assert.ok(ms < 30_000, `took ${ms} ms`);
      assert.deepEqual(processesIn(workdir), [], 'no process of the agent is left in its workdir');
    });
  }

  it('codex: once its tokens use up budget_tokens the loop blocks before the next agent, saying its cost is unknown; a raise and a continue finish it', async () => {
    api.script({ action: { kind: 'text' }, final: 'Done.' });
    const work = (name: string, position: number) => ({
      name,
      kind: 'agent',
      position,
      config: { platform: 'codex', prompt_template: 'Do {{spec_name}}.' },
    });
    const shape = {
      settings: { budget_tokens: 1000 },
      nodes: [work('first', 1), work('second', 2)],
      edges: [{ source: 'first', target: 'second' }],
    };
    const loopId = await loopWithSpecs(ctx, scratchDir(), shape, [{ name: 'the spec' }]);
    await startLoopRun(ctx, loopId);
    await untilLoopStatus(ctx, loopId, 'blocked');
    const [first] = await runsOf(ctx, loopId);
    assert.ok((first.input_tokens ?? 0) > 1000, 'codex reported the tokens it used');
    assert.equal(first.cost_usd, null, 'and no cost');
    const info = await loopStatus(ctx, loopId);
    assert.match(info.live?.blockedReason ?? '', /^budget_exhausted: this run used \d+ tokens of budget_tokens 1000, before second\./);
    assert.match(describeStatus(info), /budget {3}\d+ of 1000 tokens this run \(cost unknown for 1 agent run\(s\)\)/);

    const env = childEnv(config);
    for (const args of [
      ['loop', 'update', loopId, '--budget-tokens', '1000000'],
      ['loop', 'continue', loopId],
    ]) {
      const done = await runCanopy(env, ...args);
      assert.equal(done.status, 0, done.stderr);
    }
    const result = await waitForLoopRun(ctx, loopId);
    assert.equal(result.status, 'completed', result.reason ?? '');
    assert.deepEqual(
      (await runsOf(ctx, loopId)).map((run) => [run.node_name, run.outcome]),
      [
        ['first', 'pass'],
        ['second', 'pass'],
      ],
    );
  });
});

/** The live processes of the group but its leader (the supervisor). */
function groupMemberPids(pgid: number): number[] {
  return livePidsWhere((pid) => {
    const [state, , group] = statFields(pid);
    return Number(group) === pgid && pid !== pgid && state !== 'Z';
  });
}

/** The argv of each process of the group but its leader. */
function groupMembers(pgid: number): string[][] {
  return groupMemberPids(pgid).map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'));
}

/** Sends `signal` to every process of the group but its leader, as an OOM killer or a person would. */
function killGroupMembers(pgid: number, signal: NodeJS.Signals): void {
  for (const pid of groupMemberPids(pgid)) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile
    }
  }
}

/** Pids of live processes whose working directory is `dir`. */
function processesIn(dir: string): string[] {
  return readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return readlinkSync(`/proc/${pid}/cwd`) === dir;
    } catch {
      return false;
    }
  });
}

describe('real agent CLIs with canopy’s home under the user’s own home', { skip }, () => {
  const serving = useRealCliWorker(UNDER_USER_HOME);
  for (const cli of REAL_CLIS) {
    it(`${cli}: hears how to report from canopy alone, with a task prompt that never mentions reporting`, () =>
      hearsHowToReport(serving.setup(), cli));
  }
});
