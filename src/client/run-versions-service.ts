// Which canopy version started each open loop run, and whether this worker's workflow code replays
// them all: a worker that took a run it cannot replay would fail its every workflow task.
import type { Client } from '@temporalio/client';
import { CanopyError } from '../domain/errors';
import { packageVersion } from '../project';
import { LOOP_NAME_KEY, VERSION_KEY } from '../temporal/search-attributes';
import { hostTaskQueue, REPLAYS_FROM } from '../contract';
import type { ClientContext } from './context';

export interface OpenRun {
  workflowId: string;
  runId: string;
  loopName: string | null;
  /** The canopy version that started it; null for a run started before runs recorded theirs. */
  version: string | null;
}

/** The loop runs open on canopy's task queue and its hosts' queues, each with the version that started it. */
export async function openLoopRuns(client: Client, taskQueue: string): Promise<OpenRun[]> {
  const onQueues = `(TaskQueue = '${taskQueue}' OR TaskQueue STARTS_WITH '${hostTaskQueue(taskQueue, '')}')`;
  const query = `ExecutionStatus = 'Running' AND WorkflowType = 'loopRunWorkflow' AND ${onQueues}`;
  const runs: OpenRun[] = [];
  for await (const execution of client.workflow.list({ query })) {
    const attributes = execution.typedSearchAttributes;
    const { workflowId, runId } = execution;
    runs.push({ workflowId, runId, loopName: attributes.get(LOOP_NAME_KEY) ?? null, version: attributes.get(VERSION_KEY) ?? null });
  }
  return runs;
}

/** Whether this code replays a run `version` started: it must be REPLAYS_FROM or later. */
export function replays(version: string | null): boolean {
  return version !== null && compareVersions(version, REPLAYS_FROM) >= 0;
}

/** What `canopy doctor` calls the version of runs that recorded none. */
export const UNRECORDED = 'unrecorded';

/** Open runs per version that started them (UNRECORDED for runs that recorded none), for `canopy doctor`. */
export function runsPerVersion(runs: OpenRun[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { version } of runs) counts[version ?? UNRECORDED] = (counts[version ?? UNRECORDED] ?? 0) + 1;
  return counts;
}

/** Refuses, naming the runs and what to do, when some open run was started by a version this code no longer replays. */
export async function refuseUnreplayableRuns(ctx: ClientContext): Promise<void> {
  const stranded = (await openLoopRuns(await ctx.temporal(), ctx.config.taskQueue)).filter((run) => !replays(run.version));
  if (stranded.length === 0) return;
  const named = stranded.map(
    (run) =>
      `${run.workflowId} (run ${run.runId}${run.loopName ? `, loop "${run.loopName}"` : ''}, started by ${run.version ? `canopy ${run.version}` : 'a canopy older than 0.2.0'})`,
  );
  throw new CanopyError(
    'refused',
    `canopy ${packageVersion()} replays loop runs started by canopy ${REPLAYS_FROM} or later, and ${stranded.length} open run(s) were started before: ` +
      `${named.join('; ')}. Finish them, or stop them (\`canopy loop stop <loop>\`), with the canopy version that started them, then start this worker again.`,
  );
}

/** Orders dotted release numbers (0.2.0 < 0.10.0); anything after a '-' is ignored. */
export function compareVersions(a: string, b: string): number {
  const parts = (version: string) => version.split('-')[0].split('.').map(Number);
  const [left, right] = [parts(a), parts(b)];
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
