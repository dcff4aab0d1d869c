// A real agent CLI under `canopy up`: its callback is the worker's own run-token endpoint, not the
// operator's MCP endpoint, and its environment holds the run token and that URL but none of canopy's settings.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { openContext } from '../../src/client/context';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { freePort } from '../../src/temporal/free-port';
import { missingClis, privateTempDir, realCliPlatforms } from '../helpers/agent-clis';
import { childEnv, testConfig } from '../helpers/engine';
import { loopWithSpecs, runsOf, scratchDir } from '../helpers/loops';
import { startModelApi } from '../helpers/model-api';
import { spawnCanopy, waitForOutput } from '../helpers/processes';

const skip = !process.env.CANOPY_TEST_TEMPORAL_ADDRESS ? 'needs the dev server that `npm test` starts' : missingClis();

it('claude under `canopy up` reports to the worker endpoint with only the run token and its URL in its env', { skip }, async () => {
  const api = await startModelApi();
  const dir = privateTempDir();
  const config = testConfig(path.join(dir, 'home'));
  mkdirSync(config.home, { mode: 0o700 });
  writeFileSync(path.join(config.home, 'config.json'), JSON.stringify({ platforms: { claude: realCliPlatforms(api.url, dir).claude } }));
  const mcpPort = await freePort();
  const up = spawnCanopy(['up'], { ...childEnv(config), CANOPY_MCP_PORT: String(mcpPort) });
  const ctx = await openContext(config);
  try {
    await waitForOutput(up, /canopy is up/);
    const agentUrl = /Agents report to (\S+) /.exec(up.output())?.[1];
    assert.ok(agentUrl && !agentUrl.includes(`:${mcpPort}/`), up.output());
    const leaked = 'env | grep -cE "^(CANOPY_HOME|CANOPY_DATABASE_URL|TEMPORAL_ADDRESS|CANOPY_TASK_QUEUE)="';
    api.script({
      action: {
        kind: 'tool',
        tool: 'Bash',
        args: { command: `canopy node complete --status pass --output "$(${leaked}) $CANOPY_MCP_URL"` },
      },
      final: 'done',
    });
    const node = {
      name: 'work',
      kind: 'agent',
      position: 1,
      config: { platform: 'claude', prompt_template: 'Report.', require_report: true, timeout_minutes: 1 },
    };
    const loopId = await loopWithSpecs(ctx, scratchDir(), { nodes: [node] }, [{ name: 'spec' }]);
    await startLoopRun(ctx, loopId);
    const result = await waitForLoopRun(ctx, loopId);
    const [run] = await runsOf(ctx, loopId);
    assert.equal(result.status, 'completed', `${run.reason}\n${run.stderr}`);
    assert.equal(run.reported_output, `0 ${agentUrl}`);
  } finally {
    up.child.kill('SIGINT');
    await up.exited;
    await ctx.close();
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
