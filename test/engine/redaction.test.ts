// Secrets a node prints stay in the store only: Temporal's history, the CLI and MCP see them redacted.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { temporal } from '@temporalio/proto';
import { loopWorkflowId } from '../../src/contract';
import { CANOPY_BIN, childEnv, useEngineHarness } from '../helpers/engine';
import { check, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';
import { leakyOutput, SECRET_PIECES } from '../helpers/secrets';
import { callOk, connectStdio } from '../helpers/mcp-client';

function assertNoSecret(where: string, text: string): void {
  const shown = SECRET_PIECES.filter((piece) => text.includes(piece));
  assert.deepEqual(shown, [], `${where} shows pieces of secrets`);
}

describe('redaction of node output', () => {
  const h = useEngineHarness();

  it('keeps every secret a check prints out of the workflow history, the CLI and MCP', async () => {
    const workdir = scratchDir();
    writeFileSync(path.join(workdir, 'leaky.txt'), leakyOutput());
    const loopId = await loopWithSpecs(h.ctx, workdir, { nodes: [check('leak', 1, 'cat leaky.txt')] }, [{ name: 'spec' }]);
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed');
    const [run] = await runsOf(h.ctx, loopId);
    assert.equal(run.stdout, leakyOutput(), 'the store keeps the raw output');

    const client = await h.ctx.temporal();
    const history = await client.workflow.getHandle(loopWorkflowId(loopId)).fetchHistory();
    // Payloads are JSON bytes inside the encoded history, so a secret in any of them shows as text.
    const encoded = Buffer.from(temporal.api.history.v1.History.encode(history).finish()).toString('latin1');
    assert.ok(encoded.includes('end of output'), 'the history holds the excerpt');
    assertNoSecret('the workflow history', encoded);

    const cli = (...args: string[]) => execFileSync(process.execPath, [CANOPY_BIN, ...args], { env: childEnv(h.config), encoding: 'utf8' });
    assertNoSecret('loop runs', cli('loop', 'runs', loopId));
    assertNoSecret('loop runs --json', cli('loop', 'runs', loopId, '--json'));
    const shown = cli('loop', 'run-get', run.id, '--json');
    assert.match(JSON.parse(shown).stdout, /end of output/);
    assertNoSecret('loop run-get --json', shown);
    assertNoSecret('loop run-get', cli('loop', 'run-get', run.id));

    const session = await connectStdio(childEnv(h.config) as Record<string, string>);
    try {
      assertNoSecret('loop_node_runs_list', JSON.stringify(await callOk(session.client, 'loop_node_runs_list', { loop_id: loopId })));
      assertNoSecret('loop_node_run_get', JSON.stringify(await callOk(session.client, 'loop_node_run_get', { run_id: run.id })));
    } finally {
      await session.client.close();
    }
  });
});
