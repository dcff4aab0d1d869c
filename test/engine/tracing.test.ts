// Tracing on the real dev server: with OTEL_EXPORTER_OTLP_ENDPOINT set, `canopy loop run` and a
// `canopy worker` send a stand-in OTLP receiver one trace of the run, from the client's start through
// the workflow to each node's activity and each agent process; without it, nothing of OpenTelemetry loads.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Worker } from '@temporalio/worker';
import { openContext } from '../../src/client/context';
import { waitForLoopRun } from '../../src/client/runs-service';
import { loopWorkflowId } from '../../src/contract';
import { workflowSource } from '../../src/workflow-bundle';
import { childEnv, engineHarness, tempHome, testConfig } from '../helpers/engine';
import { agent, check, linked, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';
import { startOtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver';
import { runCanopy, spawnCanopy, waitForOutput } from '../helpers/processes';

const SLOW = { timeout: 120_000 };
const STATUS = { ok: 1, error: 2 };

const A_RUN = linked(
  agent('implement', 1, '@print implemented'),
  check('test', 2, 'true'),
  agent('review', 3, '@exit 3', { model: 'small' }),
);

function only(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const named = spans.filter((span) => span.name === name);
  assert.equal(named.length, 1, `one span ${name}`);
  return named[0];
}

describe('tracing', { skip: !process.env.CANOPY_TEST_TEMPORAL_ADDRESS && 'needs the dev server `npm test` starts' }, () => {
  it('sends one trace of a loop run: the client’s start, the workflow, each node’s activity and each agent process', SLOW, async () => {
    const receiver = await startOtlpReceiver();
    const config = testConfig(tempHome());
    const ctx = await openContext(config);
    // Nothing leaves on a timer: what arrives was sent as each process stopped.
    const env = { ...childEnv(config), OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '600000' };
    const worker = spawnCanopy(['worker'], env);
    try {
      await waitForOutput(worker, /Worker polling/);
      assert.match(worker.output(), new RegExp(`Tracing: spans to ${receiver.url} \\(OTLP over HTTP\\)`));
      const loopId = await loopWithSpecs(ctx, scratchDir(), A_RUN, [{ name: 'spec' }]);
      const started = await runCanopy(env, 'loop', 'run', loopId);
      assert.equal(started.status, 0, started.stderr);
      assert.equal((await waitForLoopRun(ctx, loopId)).status, 'failed');
      worker.child.kill('SIGTERM');
      await worker.exited;

      const { spans } = receiver;
      const start = only(spans, 'StartWorkflow:loopRunWorkflow');
      assert.deepEqual([...new Set(spans.map((span) => span.traceId))], [start.traceId], 'one trace');
      assert.deepEqual([...new Set(spans.map((span) => span.service))], ['canopy']);
      const workflow = only(spans, 'RunWorkflow:loopRunWorkflow');
      assert.equal(workflow.parentSpanId, start.spanId);

      const byId = new Map(spans.map((span) => [span.spanId, span]));
      const nodeSpans = spans.filter((span) => span.name === 'RunActivity:runNode');
      const nodeSpan = (name: string) => nodeSpans.find((span) => span.attributes['canopy.node.name'] === name) ?? assert.fail(name);
      for (const run of await runsOf(ctx, loopId)) {
        const span = nodeSpan(run.node_name);
        assert.deepEqual(Object.fromEntries(Object.entries(span.attributes).filter(([key]) => key.startsWith('canopy.'))), {
          'canopy.loop.id': loopId,
          'canopy.loop.name': 'engine test',
          'canopy.spec.id': run.spec_id,
          'canopy.node.name': run.node_name,
          'canopy.node.kind': run.kind,
          'canopy.round': run.round,
        });
        const scheduled = byId.get(span.parentSpanId) ?? assert.fail(`the span that scheduled ${run.node_name}`);
        assert.equal(scheduled.name, 'StartActivity:runNode');
        assert.equal(scheduled.parentSpanId, workflow.spanId);
      }
      assert.deepEqual(nodeSpans.map((span) => span.attributes['canopy.node.name']).sort(), ['implement', 'review', 'test']);

      const agents = spans.filter((span) => span.name === 'agent fake');
      const agentOf = (node: string) => agents.find((span) => span.parentSpanId === nodeSpan(node).spanId) ?? assert.fail(node);
      assert.equal(agents.length, 2);
      assert.deepEqual(agentOf('implement').attributes, { 'canopy.agent.platform': 'fake', 'process.exit_code': 0 });
      assert.equal(agentOf('implement').statusCode, STATUS.ok);
      assert.deepEqual(agentOf('review').attributes, {
        'canopy.agent.platform': 'fake',
        'canopy.agent.model': 'small',
        'process.exit_code': 3,
        'canopy.failure_kind': 'exit_code',
      });
      assert.equal(agentOf('review').statusCode, STATUS.error);
      assert.ok(!JSON.stringify(spans).includes('implemented'), 'no prompt or output in a span');

      // The traced workflow code adds nothing a worker that does not trace would fail to replay.
      const client = await ctx.temporal();
      const history = await client.workflow.getHandle(loopWorkflowId(loopId)).fetchHistory();
      for await (const replay of Worker.runReplayHistories(workflowSource(), [{ workflowId: 'traced', history }]))
        assert.equal(replay.error, undefined);
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
      await ctx.close();
      await receiver.close();
    }
  });

  it('loads nothing of OpenTelemetry without OTEL_EXPORTER_OTLP_ENDPOINT, in a worker or a client', SLOW, async () => {
    assert.equal(process.env.OTEL_EXPORTER_OTLP_ENDPOINT, undefined);
    const h = await engineHarness();
    try {
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), A_RUN, [{ name: 'spec' }]);
      assert.equal((await h.withWorker(() => runToEnd(h.ctx, loopId))).status, 'failed');
    } finally {
      await h.close();
    }
    assert.deepEqual(
      Object.keys(require.cache).filter((file) => /@opentelemetry|interceptors-opentelemetry/.test(file)),
      [],
    );
  });
});
