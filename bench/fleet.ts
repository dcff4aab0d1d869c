// A fleet started at once: `canopy loop run` processes for many one-check loops, all spawned
// together against the bench's worker on two cores. How long until every command has returned and
// every loop has completed, and how many workflow tasks timed out on the way: each is work the
// worker did that the server threw away and gave out again.
import type { ClientContext } from '../src/client/context';
import { waitForLoopRun } from '../src/client/runs-service';
import { loopWorkflowId } from '../src/contract';
import { runCanopy } from '../test/helpers/processes';
import { chainLoop } from './engine';

export interface FleetRound {
  returnedMs: number;
  completedMs: number;
  workflowTaskTimeouts: number;
}

async function loopRun(env: NodeJS.ProcessEnv, loopId: string): Promise<void> {
  const result = await runCanopy(env, 'loop', 'run', loopId);
  if (result.status !== 0) throw new Error(`canopy loop run ${loopId} exited ${result.status}: ${result.stderr}`);
}

async function workflowTaskTimeouts(ctx: ClientContext, loopId: string): Promise<number> {
  const history = await (await ctx.temporal()).workflow.getHandle(loopWorkflowId(loopId)).fetchHistory();
  return (history.events ?? []).filter((event) => event.workflowTaskTimedOutEventAttributes).length;
}

export async function fleetRound(ctx: ClientContext, env: NodeJS.ProcessEnv, loops: number, workdirs: string[]): Promise<FleetRound> {
  const ids: string[] = [];
  for (let i = 0; i < loops; i++) ids.push(await chainLoop(ctx, 1, workdirs));
  const started = Date.now();
  await Promise.all(ids.map((id) => loopRun(env, id)));
  const returnedMs = Date.now() - started;
  await Promise.all(ids.map((id) => waitForLoopRun(ctx, id)));
  const completedMs = Date.now() - started;
  const timeouts = await Promise.all(ids.map((id) => workflowTaskTimeouts(ctx, id)));
  return { returnedMs, completedMs, workflowTaskTimeouts: timeouts.reduce((sum, n) => sum + n, 0) };
}
