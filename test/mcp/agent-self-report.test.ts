// End to end over the real engine: an agent canopy starts finds canopy's stdio server for its run, which
// reaches the worker's endpoint with the run token, in the config canopy wrote for it; it sees only the
// self-report tools, and its loop_complete_node decides the node.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { createActivities } from '../../src/activities';
import { openContext } from '../../src/client/context';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { activityDeps } from '../../src/daemon';
import { startMcpHttpServer } from '../../src/mcp/http';
import { connectWorker, createWorkers } from '../../src/worker';
import { tempHome, testConfig } from '../helpers/engine';
import { check, loopWithSpecs, runsOf } from '../helpers/loops';
import { tempDir } from '../helpers/store';
import { SELF_REPORT_TOOLS } from '../helpers/mcp-client';

const MCP_AGENT = path.join(__dirname, 'mcp-agent.js');

it(
  'an agent reports fail over MCP through the server in its MCP config, and the node fails with its output',
  { skip: !process.env.CANOPY_TEST_TEMPORAL_ADDRESS && 'needs the dev server that `npm test` (test/run-all.js) starts' },
  async () => {
    const config = testConfig(tempHome());
    writeFileSync(
      path.join(config.home, 'config.json'),
      JSON.stringify({ platforms: { 'mcp-agent': { argv: [process.execPath, MCP_AGENT, '{{mcp_config}}', '{{prompt}}'] } } }),
    );
    const ctx = await openContext(config);
    const mcp = await startMcpHttpServer({ ctx, port: 0, operatorToken: 'operator-token-unused-here' });
    const connection = await connectWorker(config.temporalAddress);
    try {
      const agent = {
        name: 'implement',
        kind: 'agent',
        position: 1,
        config: { platform: 'mcp-agent', prompt_template: 'fail|tests still fail', timeout_minutes: 1 },
      };
      const loopId = await loopWithSpecs(
        ctx,
        tempDir(),
        { nodes: [agent, check('after', 2, 'true')], edges: [{ source: 'implement', target: 'after' }] },
        [{ name: 'spec' }],
      );
      const workers = await createWorkers({
        connection,
        config,
        activities: createActivities(activityDeps(ctx, mcp.url)),
        workflowsOnCallingThread: true,
      });
      const result = await workers.runUntil(async () => {
        await startLoopRun(ctx, loopId);
        return waitForLoopRun(ctx, loopId);
      });

      const [run] = await runsOf(ctx, loopId);
      assert.equal(result.status, 'failed', run.stdout + run.stderr);
      assert.match(run.stdout, /CANOPY_MCP_URL is the config's url: true/);
      assert.match(run.stdout, new RegExp(`tools: ${SELF_REPORT_TOOLS.join(' ')}\n`));
      assert.deepEqual(
        [run.outcome, run.failure_kind, run.reported_status, run.reported_output],
        ['fail', 'reported_fail', 'fail', 'tests still fail'],
      );
      assert.equal(run.unreported, false);
    } finally {
      await connection.close();
      await mcp.close();
      await ctx.close();
    }
  },
);
