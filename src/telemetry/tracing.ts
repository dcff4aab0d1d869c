// Tracing with OpenTelemetry, on when the standard OTEL_EXPORTER_OTLP_ENDPOINT is set: Temporal's
// interceptors trace the client, the workflows and the activities, and spans go out by OTLP over HTTP.
// Off, nothing of OpenTelemetry is loaded: its packages are required only when tracing starts.
/* eslint-disable @typescript-eslint/no-require-imports */
import type { Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { BasicTracerProvider, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ClientInterceptors } from '@temporalio/client';
import type { WorkerOptions } from '@temporalio/worker';

const TRACING_VARIABLE = 'OTEL_EXPORTER_OTLP_ENDPOINT';

/** The module the traced workflow bundle adds: Temporal's workflow interceptors, whose spans leave through the `exporter` sink. */
export const workflowTracingModule = (): string => require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

interface Tracing {
  provider: BasicTracerProvider;
  /** Where every span goes, the workflows' included: they are made in the sandbox and handed out through a sink. */
  processor: SpanProcessor;
  resource: Resource;
  tracer: Tracer;
}

/** Undefined until first asked; null when the variable is unset. */
let current: Tracing | null | undefined;

/** Where this process sends its spans, when it traces; loads nothing. */
export function tracingEndpoint(): string | null {
  return process.env[TRACING_VARIABLE] || null;
}

export const tracingOn = (): boolean => tracingEndpoint() !== null;

/** The process's tracing, started on first use; null when it is off. */
export function tracing(): Tracing | null {
  if (current === undefined) current = tracingOn() ? startTracing() : null;
  return current;
}

/**
 * One provider for the process, registered globally with a context manager that follows async calls
 * (so a span started inside an activity is a child of the activity's) and W3C propagation (which the
 * interceptors use to carry the trace through Temporal's headers).
 */
function startTracing(): Tracing {
  const { AsyncLocalStorageContextManager } =
    require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { Resource, envDetectorSync } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { BasicTracerProvider, BatchSpanProcessor } =
    require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over canopy's own name.
  const resource = new Resource({ 'service.name': 'canopy' }).merge(envDetectorSync.detect());
  // The exporter reads the endpoint (adding /v1/traces), headers and timeout from the standard variables.
  const processor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
  return { provider, processor, resource: provider.resource, tracer: provider.getTracer('canopy') };
}

/** The client's interceptors: a span around each call to a workflow (start, signal, query…), whose headers carry the trace to it. */
export function clientTracing(): ClientInterceptors | undefined {
  if (!tracing()) return undefined;
  const { OpenTelemetryWorkflowClientInterceptor } = interceptorsPackage();
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
}

/**
 * A worker's options with tracing added when it is on: a span around each activity, child of the
 * workflow's span that scheduled it, and the sink through which the workflow code's spans leave.
 */
export function withTracing(options: WorkerOptions): WorkerOptions {
  const on = tracing();
  if (!on) return options;
  const { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor, makeWorkflowExporter } = interceptorsPackage();
  return {
    ...options,
    interceptors: {
      ...options.interceptors,
      activity: [
        ...(options.interceptors?.activity ?? []),
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: { ...options.sinks, exporter: makeWorkflowExporter(on.processor, on.resource) },
  };
}

/** Sends the spans still waiting in the batch, so none is lost when a worker stops or a command ends; loads nothing when off. */
export async function flushTracing(): Promise<void> {
  await current?.provider.forceFlush();
}

const interceptorsPackage = () =>
  require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');
