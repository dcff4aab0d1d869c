// Agents reporting on their own run, authorised by the run token canopy gave them and nothing else.
import { hashRunToken } from '../run-token';
import { notifyHuman } from '../notify';
import { CanopyError } from '../domain/errors';
import type { NodeRun } from '../domain/node-run';
import { redact } from '../graph/redact';
import { getLoop, setLoopStatus } from '../store/loops-repository';
import { getNodeRunByTokenHash, updateNodeRun } from '../store/node-runs-repository';
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
  await updateNodeRun(ctx.db, run.id, { reported_status: input.status, reported_output: input.output ?? null });
  return { run_id: run.id, node: run.node_name, status: input.status };
}

/** Puts the loop in `blocked` after the running node and tells a human; `canopy loop continue` resumes it. */
export async function reportBlocker(
  ctx: ClientContext,
  input: { run_token: string; reason: string },
): Promise<{ loop_id: string; status: 'blocked' }> {
  const run = await runOfToken(ctx, input.run_token);
  const loop = await getLoop(ctx.db, run.loop_id);
  if (!loop) throw new CanopyError('not_found', `The loop of run ${run.id} no longer exists.`);
  const client = await ctx.temporal();
  // The signal is kept in Temporal's history, which the Temporal UI shows to anyone.
  await client.workflow.getHandle(loopWorkflowId(loop.id)).signal(blockSignal, { reason: redact(input.reason) });
  await setLoopStatus(ctx.db, loop.id, 'blocked');
  notifyHuman(`Loop blocked: ${loop.name}`, `${run.node_name}: ${input.reason}`);
  return { loop_id: loop.id, status: 'blocked' };
}

async function runOfToken(ctx: ClientContext, token: string): Promise<NodeRun> {
  if (!token) throw new CanopyError('invalid_input', 'run_token is required: agents find it in CANOPY_RUN_TOKEN.');
  const run = await getNodeRunByTokenHash(ctx.db, hashRunToken(token));
  if (!run) throw new CanopyError('refused', 'run_token matches no node run: use the CANOPY_RUN_TOKEN canopy gave this agent.');
  if (run.status !== 'running')
    throw new CanopyError('refused', `Node run ${run.id} already ended (${run.status}); a report must come while the node runs.`);
  return run;
}
