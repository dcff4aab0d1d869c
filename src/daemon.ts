// The long-running side of canopy: a worker bound to the store, optionally beside an embedded Temporal server.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createActivities } from './activities';
import type { ActivityDeps } from './activities/deps';
import { sweepRunDirectories } from './activities/run-directory-sweep';
import { workdirScans } from './activities/workdir-scans';
import { openContext, type ClientContext } from './client/context';
import { scheduleAutorun } from './client/autorun-service';
import { blockForKeptReport } from './client/self-report-service';
import { resumeDeliveries, startDeliveries } from './client/notifications-service';
import { workflowPageUrl } from './client/loop-status-service';
import { refuseUnreplayableRuns } from './client/run-versions-service';
import { resumeLoop } from './client/runs-service';
import { loopRunEnd, startScheduledRun } from './client/scheduled-run-service';
import type { CanopyConfig } from './config';
import { confinementPolicy, describeConfinement } from './confinement-policy';
import { startMcpHttpServer, type McpHttpServer } from './mcp/http';
import { seedBuiltinBlueprints } from './store/blueprints-repository';
import { serveCanopyCodec } from './temporal/codec/canopy-codec-server';
import type { CodecServer } from './temporal/codec/codec-server';
import { whileServerBusy } from './temporal/busy-server';
import { ensureTemporal, type TemporalEndpoint } from './temporal/embedded';
import { StartUp } from './start-up';
import { ensureSearchAttributes } from './temporal/search-attributes';
import { startFleetGauges } from './fleet-gauges';
import { tracingEndpoint } from './telemetry/tracing';
import { connectWorker, createWorkers, type CanopyWorkers } from './worker';

export interface Daemon {
  endpoint: TemporalEndpoint;
  /** On the shared task queue and on this host's. */
  workers: CanopyWorkers;
  ctx: ClientContext;
  /** The run-token MCP endpoint this worker's agents report to. */
  agentEndpoint: McpHttpServer;
  /** The codec server `canopy up` serves when payloads are encrypted, for the embedded server's Web UI. */
  codec: CodecServer | null;
  /** Settles when the workers stop. */
  running: Promise<void>;
  /** Stops the workers, then the embedded server if this process started it. */
  stop(): Promise<void>;
}

export interface DaemonOptions {
  /** Start an embedded dev server when none answers (`canopy up`); a plain worker only connects. */
  embedded: boolean;
  progress: (line: string) => void;
  /** A stop asked for while it starts: what was started is stopped again and the start-up throws. */
  stop?: AbortSignal;
}

export async function startDaemon(config: CanopyConfig, options: DaemonOptions): Promise<Daemon> {
  const startUp = new StartUp(options.stop);
  const codec =
    options.embedded && config.payloadKeys.length > 0
      ? await startUp.stage(
          () => serveCanopyCodec(config),
          (c) => c.close(),
        )
      : null;
  const endpoint: TemporalEndpoint = options.embedded
    ? await startUp.stage(
        () => ensureTemporal(config, options.progress, codec?.endpointWithToken, options.stop),
        (started) => started.server?.stop(),
      )
    : { address: config.temporalAddress, server: null, description: `server at ${config.temporalAddress}` };
  const ctx = await startUp.stage(
    () => openContext({ ...config, temporalAddress: endpoint.address }),
    (opened) => opened.close(),
  );
  const connection = await startUp.stage(
    () => connectWorker(endpoint.address, config.metricsAddress),
    (connected) => connected.close(),
  );
  const wait = { address: endpoint.address, progress: options.progress, stop: options.stop };
  await startUp.stage(() =>
    whileServerBusy(() => ensureSearchAttributes(connection, config.namespace), {
      ...wait,
      what: `register canopy's search attributes in namespace '${config.namespace}'`,
    }),
  );
  await startUp.stage(() => whileServerBusy(() => refuseUnreplayableRuns(ctx), { ...wait, what: 'list the open loop runs' }));
  await startUp.stage(() => seedBuiltinBlueprints(ctx.db));
  await startUp.stage(async () => {
    for (const refused of await sweepRunDirectories(ctx.db, config.home)) options.progress(`${refused}; a later start tries again`);
  });
  const agentEndpoint = await startUp.stage(
    () => startAgentEndpoint(ctx),
    (served) => served.close(),
  );
  const deps = await startUp.stage(
    () => activityDeps(ctx, agentEndpoint.url),
    (made) => made.workdirScans.drained(),
  );
  const workers = await startUp.stage(() => createWorkers({ connection, config, activities: createActivities(deps) }), stopWorkers);
  const memberQueues = workers.members.map((worker) => worker.options.taskQueue);
  options.progress(`Ensemble members: at most ${workers.memberCap} at once on each of '${memberQueues.join("' and '")}'`);
  options.progress(`Confinement: ${describeConfinement(confinementPolicy(config.home))}`);
  if (config.metricsAddress) {
    await startUp.stage(
      () => startFleetGauges(ctx, memberQueues, options.progress),
      (gauges) => gauges.stop(),
    );
    options.progress(`Metrics: http://${config.metricsAddress}/metrics (Prometheus)`);
  }
  if (tracingEndpoint()) options.progress(`Tracing: spans to ${tracingEndpoint()} (OTLP over HTTP)`);
  const running = workers.run();
  resumeDeliveries(ctx).catch((error: unknown) =>
    options.progress(`Notifications still pending were not sent again: ${(error as Error).message}; the next start tries again`),
  );
  return { endpoint, workers, ctx, agentEndpoint, codec, running, stop: () => startUp.unwind() };
}

/** Workers created are stopped by running them and asking them to stop at once: the SDK stops only running workers. */
async function stopWorkers(workers: CanopyWorkers): Promise<void> {
  const running = workers.run();
  workers.shutdown();
  await running.catch(() => undefined);
}

/**
 * Every worker serves its own agents' callbacks on loopback: run tokens only, never the operator's.
 * Unless a port is set, a worker takes the one the last worker of this home had when it is free:
 * the agents it adopts after a crash were given that address.
 */
export async function startAgentEndpoint(ctx: ClientContext): Promise<McpHttpServer> {
  const serve = (port: number) => startMcpHttpServer({ ctx, port, operatorToken: null, portSetting: 'CANOPY_WORKER_MCP_PORT' });
  if (ctx.config.workerMcpPort !== 0) return serve(ctx.config.workerMcpPort);
  const remembered = path.join(ctx.config.home, 'worker-mcp-port');
  const previous = existsSync(remembered) ? Number(readFileSync(remembered, 'utf8')) : 0;
  const endpoint = (previous > 0 ? await serve(previous).catch(() => undefined) : undefined) ?? (await serve(0));
  writeFileSync(remembered, new URL(endpoint.url).port, { mode: 0o600 });
  return endpoint;
}

/** The activities' view of a process that hosts a worker: its store, settings and run service. */
export function activityDeps(ctx: ClientContext, mcpUrl: string): ActivityDeps {
  return {
    db: ctx.db,
    home: ctx.config.home,
    databaseUrl: ctx.config.databaseUrl,
    hostId: ctx.config.hostId,
    mcpUrl,
    temporalAddress: ctx.config.temporalAddress,
    resumeLoop: (loopId, waitForWorkdir) => resumeLoop(ctx, loopId, waitForWorkdir),
    blockForKeptReport: (nodeRunId, reason) => blockForKeptReport(ctx, nodeRunId, reason),
    scheduleAutorun: async (loopId, at) => void (await scheduleAutorun(ctx, loopId, at)),
    startScheduledRun: (loopId, queueId, waitForWorkdir) => startScheduledRun(ctx, loopId, queueId, waitForWorkdir),
    loopRunEnd: (run, signal) => loopRunEnd(ctx, run, signal),
    startDeliveries: (ids) => startDeliveries(ctx, ids),
    runPageUrl: (workflowId) => ctx.config.temporalUiUrl && workflowPageUrl(ctx.config.temporalUiUrl, ctx.config.namespace, workflowId),
    workdirScans: workdirScans((message) => console.warn(message)),
  };
}
