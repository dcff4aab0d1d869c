// The gauges a worker that serves metrics keeps up to date: loops by status (from the store, the
// same on every worker) and this host's ensemble members, queued on its member queues (Temporal's
// backlog) and running (their open node runs), through the SDK runtime's metric meter.
import { temporal } from '@temporalio/proto';
import { Runtime } from '@temporalio/worker';
import type { ClientContext } from './client/context';
import { LOOP_STATUSES } from './domain/loop';
import { loopCountsByStatus } from './store/loops-repository';
import { runningMembersOn } from './store/node-runs-repository';

const REFRESH_MS = 5_000;

export interface FleetGauges {
  stop(): void;
}

export function startFleetGauges(ctx: ClientContext, memberQueues: string[], warn: (line: string) => void): FleetGauges {
  const meter = Runtime.instance().metricMeter;
  const loops = meter.createGauge('canopy_loops', 'int', 'loops', 'Loops (archived ones left out) by status');
  const members = meter.createGauge('canopy_members', 'int', 'members', 'Ensemble members of this host, queued for a slot or running');
  const host = ctx.config.hostId;
  let warned = false;
  const refresh = async () => {
    const counts = await loopCountsByStatus(ctx.db);
    for (const status of LOOP_STATUSES) loops.set(counts.get(status) ?? 0, { status });
    members.set(await runningMembersOn(ctx.db, host), { host, state: 'running' });
    members.set(await queuedOn(ctx, memberQueues), { host, state: 'queued' });
  };
  const tick = () =>
    refresh().catch((error: unknown) => {
      if (!warned)
        warn(
          `Metrics: could not refresh the fleet gauges (${error instanceof Error ? error.message : String(error)}); trying again every ${REFRESH_MS / 1000} s`,
        );
      warned = true;
    });
  void tick();
  const timer = setInterval(() => void tick(), REFRESH_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Members scheduled on the host's member queues and not yet started: Temporal's approximate backlog. */
async function queuedOn(ctx: ClientContext, queues: string[]): Promise<number> {
  const client = await ctx.temporal();
  const backlogs = await Promise.all(
    queues.map(async (name) => {
      const { stats } = await client.workflowService.describeTaskQueue({
        namespace: ctx.config.namespace,
        taskQueue: { name, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
        reportStats: true,
      });
      return Number(stats?.approximateBacklogCount ?? 0);
    }),
  );
  return backlogs.reduce((sum, backlog) => sum + backlog, 0);
}
