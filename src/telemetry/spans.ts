// What canopy adds to the spans Temporal's interceptors make: which loop, spec, node and round an
// activity runs, and a span for each agent process. Never a prompt, an output or an environment:
// spans leave the machine. Each helper does nothing when tracing is off.
/* eslint-disable @typescript-eslint/no-require-imports */
import { tracing } from './tracing';

export interface NodeSubject {
  loop: { id: string; name: string };
  spec: { id: string };
  node: { name: string; kind: string };
  round: number;
}

/** Names the node on the span of the activity that runs it. */
export function describeNodeActivity({ loop, spec, node, round }: NodeSubject): void {
  if (!tracing()) return;
  const { trace } = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  trace.getActiveSpan()?.setAttributes({
    'canopy.loop.id': loop.id,
    'canopy.loop.name': loop.name,
    'canopy.spec.id': spec.id,
    'canopy.node.name': node.name,
    'canopy.node.kind': node.kind,
    'canopy.round': round,
  });
}

export interface AgentProcess {
  platform: string;
  model: string | null;
}

/** How an agent process ended, as its node's verdict says. */
export interface AgentEnd {
  exitCode: number | null;
  verdict: { outcome: string; failureKind: string | null };
}

/** Runs `run` (an agent process, from start to verdict) inside a span `agent <platform>`, child of the activity's. */
export async function traceAgentProcess<T extends AgentEnd>(agent: AgentProcess, run: () => Promise<T>): Promise<T> {
  const on = tracing();
  if (!on) return run();
  const { SpanStatusCode } = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const span = on.tracer.startSpan(`agent ${agent.platform}`, {
    attributes: { 'canopy.agent.platform': agent.platform, ...(agent.model !== null && { 'canopy.agent.model': agent.model }) },
  });
  try {
    const end = await run();
    if (end.exitCode !== null) span.setAttribute('process.exit_code', end.exitCode);
    if (end.verdict.failureKind) span.setAttribute('canopy.failure_kind', end.verdict.failureKind);
    span.setStatus({ code: end.verdict.outcome === 'fail' ? SpanStatusCode.ERROR : SpanStatusCode.OK });
    return end;
  } catch (error) {
    // No message: it may quote the process's output.
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
