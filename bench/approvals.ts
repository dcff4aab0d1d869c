// Loops waiting at an approval: what the worker holds while they wait (memory, activities, processes)
// beside the same loops idle, and how soon the walk goes on after a decision, beside a node step of the
// same loops (the engine's own pace from one node to the next).
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decideApproval } from '../src/client/approvals-service';
import type { ClientContext } from '../src/client/context';
import { importLoop } from '../src/client/export-import-service';
import { liveState, startLoopRun, waitForLoopRun } from '../src/client/runs-service';
import { createSpec } from '../src/client/specs-service';
import { loopWorkflowId } from '../src/contract';
import { listNodeRuns } from '../src/store/node-runs-repository';
import { rssKb, supervisorPids } from './recovery';

export interface ApprovalFigures {
  idleRssMb: number;
  waitingRssMb: number;
  /** Activities Temporal shows pending across the waiting loops' workflows. */
  pendingActivities: number;
  /** Node processes (supervisors) started for them: those running now beyond those before they started. */
  processes: number;
  /** From each decision's call to the next node's start. */
  decisionToNextMs: number[];
  /** From that node's start to the one after it: a node step of the same loop. */
  stepMs: number[];
}

function approvalLoop(index: number) {
  return {
    format_version: 1,
    name: `approval ${index}`,
    description: '',
    nodes: [
      { name: 'review', kind: 'approval', position: 1, config: { message_template: 'ship spec {{spec_name}}?' } },
      { name: 'after', kind: 'check', position: 2, config: { command: 'true' } },
      { name: 'done', kind: 'check', position: 3, config: { command: 'true' } },
    ],
    edges: [
      { source: 'review', target: 'after', condition: 'pass' },
      { source: 'after', target: 'done', condition: 'pass' },
    ],
    ensembles: [],
  };
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (const started = Date.now(); !(await check()); await new Promise((resolve) => setTimeout(resolve, 50)))
    if (Date.now() - started > 300_000) throw new Error(`timed out waiting for ${what}`);
}

async function startedAt(ctx: ClientContext, loopId: string, node: string): Promise<number | null> {
  const run = (await listNodeRuns(ctx.db, { loopId, limit: 10 })).find((candidate) => candidate.node_name === node);
  return run ? Date.parse(run.started_at) : null;
}

export async function approvalFigures(ctx: ClientContext, workerPid: number, loops: number, workdirs: string[]): Promise<ApprovalFigures> {
  const ids: string[] = [];
  for (let index = 0; index < loops; index++) {
    const workdir = mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-approval-'));
    workdirs.push(workdir);
    const { loop_id } = await importLoop(ctx, approvalLoop(index), { workdir });
    await createSpec(ctx, { loop_id, name: 'bench' });
    ids.push(loop_id);
  }
  const idleRssMb = rssKb(workerPid) / 1024;
  const processesBefore = supervisorPids().length;
  await Promise.all(ids.map((id) => startLoopRun(ctx, id)));
  // The store says waiting as each open's activity ends; a run waits once it has taken that activity's result.
  await until('every run to wait', async () => {
    for (const id of ids) if ((await liveState(ctx, id).catch(() => null))?.status !== 'waiting') return false;
    return true;
  });
  const client = await ctx.temporal();
  const described = await Promise.all(ids.map((id) => client.workflow.getHandle(loopWorkflowId(id)).describe()));
  const pendingActivities = described.reduce((sum, description) => sum + (description.raw.pendingActivities?.length ?? 0), 0);
  const waitingRssMb = rssKb(workerPid) / 1024;
  const processes = supervisorPids().length - processesBefore;

  const decisionToNextMs: number[] = [];
  const stepMs: number[] = [];
  for (const id of ids) {
    const decided = Date.now();
    await decideApproval(ctx, { loop_id: id, decision: 'approve', by: 'bench' });
    await waitForLoopRun(ctx, id);
    const after = (await startedAt(ctx, id, 'after'))!;
    decisionToNextMs.push(after - decided);
    stepMs.push((await startedAt(ctx, id, 'done'))! - after);
  }
  return { idleRssMb, waitingRssMb, pendingActivities, processes, decisionToNextMs, stepMs };
}
