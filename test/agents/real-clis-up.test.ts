// The real agent CLIs under `canopy up`: each reports through loop_complete_node to the worker's own
// run-token endpoint (not the operator's MCP endpoint), and an agent's environment holds the run
// token and that URL but none of canopy's settings.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/temporal/free-port';
import { missingClis, openRealCliSetup, REAL_CLIS, runOneAgent, type RealCli, type RealCliSetup } from '../helpers/agent-clis';
import { childEnv } from '../helpers/engine';
import type { ModelScript } from '../helpers/model-api';
import { spawnCanopy, waitForOutput, type CanopyProcess } from '../helpers/processes';

const skip = !process.env.CANOPY_TEST_TEMPORAL_ADDRESS ? 'needs the dev server that `npm test` starts' : missingClis();

describe('real agent CLIs under `canopy up`', { skip }, () => {
  let setup: RealCliSetup;
  let up: CanopyProcess;
  let mcpPort: number;
  let agentUrl: string;

  before(async () => {
    setup = await openRealCliSetup();
    mcpPort = await freePort();
    up = spawnCanopy(['up'], { ...childEnv(setup.config), CANOPY_MCP_PORT: String(mcpPort) });
    await waitForOutput(up, /canopy is up/);
    agentUrl = /Agents report to (\S+) /.exec(up.output())?.[1] ?? '';
  });

  after(async () => {
    up?.child.kill('SIGINT');
    await up?.exited;
    await setup?.close();
  });

  const runAgent = (cli: RealCli, script: ModelScript) =>
    runOneAgent(setup, cli, script, { prompt_template: 'Report with loop_complete_node.', timeout_minutes: 1 });

  it('serves the agents an endpoint of their own, apart from the operator’s', () => {
    assert.ok(agentUrl && !agentUrl.includes(`:${mcpPort}/`), up.output());
  });

  for (const cli of REAL_CLIS) {
    it(`${cli}: a require_report node passes through loop_complete_node over MCP`, async () => {
      const { result, run } = await runAgent(cli, {
        action: { kind: 'tool', tool: 'loop_complete_node', args: { status: 'pass', output: `${cli} reported under canopy up` } },
        final: 'All done.',
      });
      assert.equal(result.status, 'completed', `${run.reason}\n${run.stderr}`);
      assert.deepEqual([run.reported_status, run.reported_output], ['pass', `${cli} reported under canopy up`]);
    });
  }

  it('claude’s shell sees only the run token and the worker’s URL, none of canopy’s settings', async () => {
    const leaked = 'env | grep -cE "^(CANOPY_HOME|CANOPY_DATABASE_URL|TEMPORAL_ADDRESS|CANOPY_TASK_QUEUE)="';
    const { result, run } = await runAgent('claude', {
      action: {
        kind: 'tool',
        tool: 'Bash',
        args: { command: `canopy node complete --status pass --output "$(${leaked}) $CANOPY_MCP_URL"` },
      },
      final: 'done',
    });
    assert.equal(result.status, 'completed', `${run.reason}\n${run.stderr}`);
    assert.equal(run.reported_output, `0 ${agentUrl}`);
  });
});
