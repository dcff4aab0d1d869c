// An agent's report made while its worker is down: kept in the run directory and delivered once a
// worker is back on the same address, or read from there when the adopting worker judges the node.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { openContext, type ClientContext } from '../../src/client/context';
import { startLoopRun, stopLoop, waitForLoopRun } from '../../src/client/runs-service';
import type { NodeRun } from '../../src/domain/node-run';
import type { LoopRunResult } from '../../src/contract';
import { getLoop } from '../../src/store/loops-repository';
import { FAKE_AGENT, childEnv, tempHome, testConfig } from '../helpers/engine';
import { agent, check, loopWithSpecs, runsOf, untilLoopStatus } from '../helpers/loops';
import { spawnCanopy, waitForOutput, type CanopyProcess } from '../helpers/processes';
import { waitUntil } from '../helpers/wait';

const scratch = () => mkdtempSync(path.join(os.tmpdir(), 'canopy-kept-report-'));

interface WorkerDown {
  ctx: ClientContext;
  loopId: string;
  /** The agent's node run, started before its worker was killed. */
  run: NodeRun;
  runDir: string;
  /** Lets the agent go on to report, its worker dead. */
  release(): void;
  /** Starts a worker again (on the address the last one served, which canopy remembers). */
  restartWorker(): Promise<void>;
}

/**
 * Runs a one-agent loop whose agent (platform `agent`, given by `platform`) waits for the file named by
 * `{{go}}` in its prompt; kills the worker with SIGKILL once the agent runs, then hands over to `scenario`.
 */
async function withWorkerKilled<T>(
  platform: (goFile: string) => { argv: string[]; prompt: string },
  scenario: (down: WorkerDown) => Promise<T>,
): Promise<T> {
  const home = tempHome();
  const config = testConfig(home);
  const workdir = scratch();
  // In the workdir: a confined agent has a /tmp of its own.
  const go = path.join(workdir, 'go');
  const { argv, prompt } = platform(go);
  writeFileSync(path.join(home, 'config.json'), JSON.stringify({ platforms: { agent: { argv } } }));
  const ctx = await openContext(config);
  const workers: CanopyProcess[] = [spawnCanopy(['worker'], childEnv(config))];
  let loopId = '';
  try {
    await waitForOutput(workers[0], /Worker polling/);
    loopId = await loopWithSpecs(
      ctx,
      workdir,
      {
        nodes: [agent('reporter', 1, prompt, { platform: 'agent' }), check('after', 2, 'true')],
        edges: [{ source: 'reporter', target: 'after' }],
      },
      [{ name: 'spec' }],
    );
    await startLoopRun(ctx, loopId);
    const run = await waitUntil('the agent to start', async () => (await runsOf(ctx, loopId)).find((r) => r.pgid !== null));
    workers[0].child.kill('SIGKILL');
    await workers[0].exited;
    return await scenario({
      ctx,
      loopId,
      run,
      runDir: path.join(home, 'runs', run.id),
      release: () => writeFileSync(go, ''),
      restartWorker: async () => {
        workers.push(spawnCanopy(['worker'], childEnv(config)));
        await waitForOutput(workers.at(-1)!, /Worker polling/);
      },
    });
  } finally {
    if (loopId) await stopLoop(ctx, loopId).catch(() => undefined);
    for (const worker of workers) worker.child.kill('SIGKILL');
    await ctx.close();
  }
}

/** A shell agent: waits for the go file, then runs `report` (the `canopy` on its PATH is canopy's shim). */
const shellAgent = (report: string) => (go: string) => ({
  argv: ['bash', '-c', `while [ ! -e "${go}" ]; do sleep 0.1; done; ${report}; echo "agent done"`, 'agent', '{{prompt}}'],
  prompt: 'work',
});

/** The stand-in agent given canopy's MCP config for the run, as a real CLI is. */
const mcpAgent = (verbs: string) => (go: string) => ({
  argv: [process.execPath, FAKE_AGENT, '--mcp-config', '{{mcp_config}}', '{{prompt}}'],
  prompt: `@wait-for ${go}\n${verbs}`,
});

const exitRecorded = (down: WorkerDown) =>
  waitUntil('the agent to end and its exit to be recorded', () => Promise.resolve(existsSync(path.join(down.runDir, 'exit'))), 120_000);

async function reporterOf(ctx: ClientContext, loopId: string): Promise<NodeRun> {
  return (await runsOf(ctx, loopId)).find((r) => r.node_name === 'reporter')!;
}

function assertFailedAsReported(result: LoopRunResult, run: NodeRun, output: string): void {
  assert.equal(result.status, 'failed');
  assert.deepEqual(
    [run.outcome, run.reported_status, run.reported_output, run.unreported],
    ['fail', 'fail', output, false],
    `the node failed as reported: ${run.reason ?? ''}`,
  );
}

describe('a report made while the worker is down', () => {
  it('is offered again by `canopy node complete` until a worker is back on the same address', async () => {
    await withWorkerKilled(shellAgent('canopy node complete --status fail --output reported-while-down'), async (down) => {
      down.release();
      // The first try met no worker (today's code gives up there, and its agent exits 0).
      await waitUntil('the first try to fail', () =>
        Promise.resolve(
          existsSync(path.join(down.runDir, 'stderr')) && /fetch failed/.test(readFileSync(path.join(down.runDir, 'stderr'), 'utf8')),
        ),
      );
      await down.restartWorker();
      const result = await waitForLoopRun(down.ctx, down.loopId);
      const run = await reporterOf(down.ctx, down.loopId);
      assertFailedAsReported(result, run, 'reported-while-down');
      assert.match(run.stdout, new RegExp(`^Reported fail for reporter \\(${run.id}\\)\\.\\nagent done$`, 'm'), 'delivered once back');
    });
  });

  it('is read from the run directory when the agent ended before any worker took it', async () => {
    // The shell tool of a real CLI gives a command a time limit: this one is cut off while it waits for the worker.
    const report = 'timeout 3 canopy node complete --status fail --output kept-while-down; echo "report rc=$?"';
    await withWorkerKilled(shellAgent(report), async (down) => {
      down.release();
      await exitRecorded(down);
      await down.restartWorker();
      const result = await waitForLoopRun(down.ctx, down.loopId);
      const run = await reporterOf(down.ctx, down.loopId);
      assertFailedAsReported(result, run, 'kept-while-down');
      assert.match(run.stdout, /^report rc=124$/m, 'the command was cut off before any worker answered');
      assert.equal(run.activity_attempt, 2, 'the new worker adopted the run and judged it');
    });
  });

  it('through the MCP tool, is kept and read when the node ends', async () => {
    await withWorkerKilled(mcpAgent('@mcp-report fail reported-over-mcp'), async (down) => {
      down.release();
      await exitRecorded(down);
      await down.restartWorker();
      const result = await waitForLoopRun(down.ctx, down.loopId);
      const run = await reporterOf(down.ctx, down.loopId);
      assertFailedAsReported(result, run, 'reported-over-mcp');
      assert.match(run.stderr, /"message": "The report is kept in /, 'the agent was told its report is kept');
    });
  });

  it('blocks the loop, a blocker reported by `canopy node block` as by the MCP tool', async () => {
    const report = 'timeout 3 canopy node block --reason "needs the deploy key"; echo "block rc=$?"';
    await withWorkerKilled(shellAgent(report), async (down) => {
      down.release();
      await exitRecorded(down);
      await down.restartWorker();
      await untilLoopStatus(down.ctx, down.loopId, 'blocked');
      const run = await waitUntil('the node to be judged', async () => {
        const reporter = await reporterOf(down.ctx, down.loopId);
        return reporter.status !== 'running' && reporter;
      });
      assert.equal(run.outcome, 'pass');
      assert.equal((await getLoop(down.ctx.db, down.loopId))?.status, 'blocked');
      const after = (await runsOf(down.ctx, down.loopId)).filter((r) => r.node_name === 'after');
      assert.deepEqual(after, [], 'the loop stopped after the node that reported the blocker');
    });
    await withWorkerKilled(mcpAgent('@mcp-block needs a human'), async (down) => {
      down.release();
      await exitRecorded(down);
      await down.restartWorker();
      await untilLoopStatus(down.ctx, down.loopId, 'blocked');
    });
  });
});
