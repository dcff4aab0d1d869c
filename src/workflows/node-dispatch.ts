// One step of a spec's walk: a node (gate, router, agent, check) or an ensemble, run to its outcome.
import { workflowInfo } from '@temporalio/workflow';
import type { NodeOutcome } from '../contract';
import { runEnsemble } from './ensemble-run';
import { withInfraRetries } from './infra-retries';
import type { ExecutionBase, LoopRun, SpecWalk } from './run-state';
import { nodeSummary, tell } from './story';

export async function dispatchNode(run: LoopRun, walk: SpecWalk, name: string, round: number): Promise<NodeOutcome> {
  const visit = (walk.visits.get(name) ?? 0) + 1;
  walk.visits.set(name, visit);
  const runKey = `${workflowInfo().runId}:${walk.specId}:${name}:${visit}`;
  const kind = walk.graph.topology.vertices.find((vertex) => vertex.name === name)?.kind;
  const base: ExecutionBase = { ...walk.context, round, runKey, previousRunId: walk.previousRunId, stragglerMinutes: null };
  const summary = nodeSummary(name, run.live.specName, round);
  tell(run.live);
  if (kind === 'gate' || kind === 'router') {
    return run.activities.evaluation(summary).evaluateNode({ ...base, nodeName: name, judgeCommitRights: false });
  }
  if (kind === 'ensemble') return runEnsemble(run, walk, name, base);
  return runProcess(run, walk, name, base, summary);
}

/** An agent or check; one that failed for infrastructure reasons runs again, each attempt under its own run key. */
function runProcess(run: LoopRun, walk: SpecWalk, name: string, base: ExecutionBase, summary: string): Promise<NodeOutcome> {
  const judgeCommitRights = walk.graph.commitRightsEnforced;
  const attempt = (runKey: string, what: string) =>
    run.activities.execution(what).runNode({ ...base, runKey, nodeName: name, judgeCommitRights });
  return withInfraRetries(walk.graph.infraRetries, walk.graph.infraBackoffSeconds, (number) =>
    number === 1 ? attempt(base.runKey, summary) : attempt(`${base.runKey}:infra-${number}`, `${summary}, infra attempt ${number}`),
  );
}
