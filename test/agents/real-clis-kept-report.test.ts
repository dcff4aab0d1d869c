// Each real agent CLI reports over MCP while the worker that started it is down (SIGKILLed once the CLI
// has asked its model, which answers with the tool call only after that), and a worker started again
// afterwards fails the node with the reported output: the report is kept by canopy's stdio MCP server.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { missingClis, openRealCliSetup, REAL_CLIS, type RealCliSetup } from '../helpers/agent-clis';
import { childEnv } from '../helpers/engine';
import { loopWithSpecs, runsOf, scratchDir } from '../helpers/loops';
import { spawnCanopy, waitForOutput, type CanopyProcess } from '../helpers/processes';
import { waitUntil } from '../helpers/wait';

describe('real agent CLIs reporting while their worker is down', { skip: missingClis() }, () => {
  let setup: RealCliSetup;
  before(async () => (setup = await openRealCliSetup()));
  after(() => setup?.close());

  for (const cli of REAL_CLIS) {
    it(`${cli}: a report of fail over MCP while no worker runs fails the node with its output once a worker is back`, async () => {
      const { api, config, ctx } = setup;
      let release = () => {};
      const output = `${cli} reported while its worker was down`;
      api.script({
        action: { kind: 'tool', tool: 'loop_complete_node', args: { status: 'fail', output } },
        final: 'Reported.',
        heldUntil: new Promise((resolve) => (release = resolve)),
      });
      const workers: CanopyProcess[] = [spawnCanopy(['worker'], childEnv(config))];
      try {
        await waitForOutput(workers[0], /Worker polling/);
        const node = {
          name: 'work',
          kind: 'agent',
          position: 1,
          config: { platform: cli, prompt_template: 'Do it.', require_report: true },
        };
        const loopId = await loopWithSpecs(ctx, scratchDir(), { nodes: [node] }, [{ name: 'the spec' }]);
        await startLoopRun(ctx, loopId);
        await waitUntil('the CLI to ask its model', () => Promise.resolve(api.held() > 0), 90_000);
        const [running] = await runsOf(ctx, loopId);
        workers[0].child.kill('SIGKILL');
        await workers[0].exited;
        release();
        const exit = path.join(config.home, 'runs', running.id, 'exit');
        await waitUntil('the CLI to end with no worker', () => Promise.resolve(existsSync(exit)), 120_000);
        workers.push(spawnCanopy(['worker'], childEnv(config)));

        const result = await waitForLoopRun(ctx, loopId);
        const [run] = await runsOf(ctx, loopId);
        assert.equal(result.status, 'failed', `${run.reason ?? ''}\n${run.stdout}\n${run.stderr}`);
        assert.deepEqual(
          [run.outcome, run.failure_kind, run.reported_status, run.reported_output, run.unreported],
          ['fail', 'reported_fail', 'fail', output, false],
        );
        assert.ok(run.activity_attempt >= 2, 'a new worker adopted the run and judged it');
      } finally {
        release();
        for (const worker of workers) worker.child.kill('SIGKILL');
      }
    });
  }
});
