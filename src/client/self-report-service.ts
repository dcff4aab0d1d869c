// Agents reporting on their own run, authorised by the run token canopy gave them and nothing else.
import { hashRunToken } from '../run-token';
import { notifyHuman } from '../notify/channels/desktop';
import { CanopyError } from '../domain/errors';
import type { NodeRun } from '../domain/node-run';
import { redact } from '../graph/redact';
import { runDirectoryPath } from '../process/run-directory';
import { keepBlocker, keepReport, type KeptBlocker } from '../process/run-reports';
import { getLoop } from '../store/loops-repository';
import { getNodeRun, getNodeRunByTokenHash, updateNodeRun } from '../store/node-runs-repository';
import { blockSignal, loopWorkflowId } from '../contract';
import type { ClientContext } from './context';

export interface CompleteNodeInput {
  run_token: string;
  status: 'pass' | 'fail';
  output?: string;
}

/** Records the agent's own verdict; the engine reads it when the agent's process ends. An explicit report always wins. */
export async function completeNode(
  ctx: ClientContext,
  input: CompleteNodeInput,
): Promise<{ run_id: string; node: string; status: 'pass' | 'fail' }> {
  const run = await runOfToken(ctx, input.run_token);
  const report = { status: input.status, output: input.output ?? null };
  // The run directory holds the newest report, whichever way it came: the judge reads it there first.
  keepInRunDirectory(ctx, run, (dir) => keepReport(dir, report));
  await updateNodeRun(ctx.db, run.id, { reported_status: report.status, reported_output: report.output });
  return { run_id: run.id, node: run.node_name, status: input.status };
}

/** Blocks the loop after the running node and tells a human; `canopy loop continue` resumes it. */
export async function reportBlocker(
  ctx: ClientContext,
  input: { run_token: string; reason: string },
): Promise<{ loop_id: string; status: 'blocked' }> {
  return blockAfterRun(ctx, await runOfToken(ctx, input.run_token), input.reason);
}

/**
 * The blocker an agent kept in its run directory while its worker could not be told, read when its
 * process ended: the loop blocks after the node as if the report had arrived.
 */
export async function blockForKeptReport(ctx: ClientContext, nodeRunId: string, reason: string): Promise<void> {
  const run = await getNodeRun(ctx.db, nodeRunId);
  if (!run) throw new CanopyError('not_found', `Node run ${nodeRunId} no longer exists.`);
  await blockAfterRun(ctx, run, reason);
}

async function blockAfterRun(ctx: ClientContext, run: NodeRun, reason: string): Promise<{ loop_id: string; status: 'blocked' }> {
  const loop = await getLoop(ctx.db, run.loop_id);
  if (!loop) throw new CanopyError('not_found', `The loop of run ${run.id} no longer exists.`);
  const client = await ctx.temporal();
  // The signal is kept in Temporal's history, which the Temporal UI shows to anyone. The workflow, the one writer of a
  // loop's status, records `blocked` when it reaches the checkpoint after the node.
  await client.workflow.getHandle(loopWorkflowId(loop.id)).signal(blockSignal, { reason: redact(reason) });
  notifyHuman(`Loop blocked: ${loop.name}`, `${run.node_name}: ${reason}`);
  const delivered: KeptBlocker = { reason, delivered: true };
  keepInRunDirectory(ctx, run, (dir) => keepBlocker(dir, delivered));
  return { loop_id: loop.id, status: 'blocked' };
}

/**
 * Writes into the run's directory where it is: not on another machine (a report over stdio may come from
 * anywhere), nor once it went with its run.
 */
function keepInRunDirectory(ctx: ClientContext, run: NodeRun, keep: (dir: string) => void): void {
  try {
    keep(runDirectoryPath(ctx.config.home, run.id));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

async function runOfToken(ctx: ClientContext, token: string): Promise<NodeRun> {
  if (!token) throw new CanopyError('invalid_input', 'run_token is required: agents find it in CANOPY_RUN_TOKEN.');
  const run = await getNodeRunByTokenHash(ctx.db, hashRunToken(token));
  if (!run) throw new CanopyError('refused', 'run_token matches no node run: use the CANOPY_RUN_TOKEN canopy gave this agent.');
  if (run.status !== 'running')
    throw new CanopyError('refused', `Node run ${run.id} already ended (${run.status}); a report must come while the node runs.`);
  return run;
}
