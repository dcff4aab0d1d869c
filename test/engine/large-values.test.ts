// Values far over the kernel's 128 KiB per-string cap reach checks and agents through files in the
// run directory, and never through the workflow's history.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { temporal } from '@temporalio/proto';
import { loopWorkflowId } from '../../src/contract';
import { KEPT_OUTPUT_BYTES } from '../../src/process/supervision/records';
import { useEngineHarness } from '../helpers/engine';
import { agent, check, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';

describe('large values', () => {
  // The worker reads and stores each 10 MB value on its own event loop; beside other test files on two
  // cores that can outlast the suite's 3 s heartbeat timeout, which these tests are not about.
  const h = useEngineHarness({ CANOPY_HEARTBEAT_TIMEOUT_SECONDS: '30' });

  it('hands a 10 MB check output on through files, keeping the history small', { timeout: 120_000 }, async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      {
        nodes: [
          check('big', 1, 'head -c 10000000 /dev/zero | tr "\\0" "x"; echo'),
          check(
            'relay',
            2,
            'test -f "$CANOPY_PREVIOUS_OUTPUT_FILE" && echo "{{previous_output}}" | grep -q "canopy: truncated" && cat "$CANOPY_PREVIOUS_OUTPUT_FILE"',
          ),
          agent('reader', 3, '@print the agent read {{previous_output}}'),
          check('after', 4, 'echo "{{previous_output}}" | head -c 40'),
        ],
        edges: [
          { source: 'big', target: 'relay' },
          { source: 'relay', target: 'reader' },
          { source: 'reader', target: 'after' },
        ],
      },
      [{ name: 'spec' }],
    );
    const started = Date.now();
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    const elapsed = Date.now() - started;
    assert.equal(result.status, 'completed', result.reason ?? '');
    const runs = await runsOf(h.ctx, loopId);
    const stdoutOf = (name: string) => runs.find((r) => r.node_name === name)!.stdout;
    const cut = '\n[canopy: 9475713 bytes of 10000001 cut here]\n';
    assert.equal(
      stdoutOf('big'),
      `${'x'.repeat(KEPT_OUTPUT_BYTES / 2)}${cut}${'x'.repeat(KEPT_OUTPUT_BYTES / 2 - 1)}\n`,
      'the store keeps its head and tail',
    );
    assert.ok(stdoutOf('relay').length >= KEPT_OUTPUT_BYTES, 'the relay read the whole value from its file');
    assert.match(stdoutOf('reader'), /^the agent read xxxx/);
    assert.match(stdoutOf('after'), /^the agent read x/);

    const history = await (await h.ctx.temporal()).workflow.getHandle(loopWorkflowId(loopId)).fetchHistory();
    const bytes = temporal.api.history.v1.History.encode(history).finish().length;
    console.log(`# 10 MB output: history ${bytes} bytes, run ${elapsed} ms`);
    assert.ok(bytes < 100_000, `history is ${bytes} bytes`);
  });

  it('gives an agent a 1 MB prompt through prompt.md in its run directory', { timeout: 60_000 }, async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      { nodes: [agent('big', 1, `@print read the whole prompt\n${'y'.repeat(1024 * 1024)}\n@print to its end`)] },
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed', result.reason ?? '');
    const [run] = await runsOf(h.ctx, loopId);
    assert.equal(run.stdout, 'read the whole prompt\nto its end\n');
  });
});
