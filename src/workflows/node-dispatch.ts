// One step of a spec's walk: a vertex run to its outcome, by a table keyed by every kind a vertex can be.
import { workflowInfo } from '@temporalio/workflow';
import type { HandedNode, NodeOutcome } from '../contract';
import type { Vertex, VertexKind } from '../graph/topology';
import type { ExecutedKind, JudgingKind } from '../node-kinds/catalogue';
import { awaitApproval } from './approval-wait';
import { runEnsemble } from './ensemble-run';
import { takeFeedback } from './feedback';
import { withInfraRetries } from './infra-retries';
import type { ExecutionBase, LoopRun, SpecWalk } from './run-state';
import { nodeSummary, tell } from './story';

type KindStep<Kind extends VertexKind> = (
  run: LoopRun,
  walk: SpecWalk,
  vertex: Vertex & { kind: Kind },
  base: ExecutionBase,
  summary: string,
) => Promise<NodeOutcome>;

/** How the walk runs each kind of vertex; the compiler refuses a kind without an entry. */
const STEPS: { [Kind in VertexKind]: KindStep<Kind> } = {
  agent: runProcess,
  check: runProcess,
  gate: judgeUpstream,
  router: judgeUpstream,
  approval: awaitApproval,
  ensemble: (run, walk, vertex, base) => runEnsemble(run, walk, vertex.name, base),
};

export async function dispatchNode(run: LoopRun, walk: SpecWalk, name: string, round: number): Promise<NodeOutcome> {
  const visit = (walk.visits.get(name) ?? 0) + 1;
  walk.visits.set(name, visit);
  const runKey = `${workflowInfo().runId}:${walk.specId}:${name}:${visit}`;
  // The walk only reaches vertices of its own topology.
  const vertex = walk.graph.topology.vertices.find((candidate) => candidate.name === name)!;
  const base: ExecutionBase = {
    ...walk.context,
    round,
    runKey,
    previousRunId: walk.previousRunId,
    stragglerMinutes: null,
    ...takeFeedback(run, vertex.kind),
  };
  const summary = nodeSummary(name, run.live.specName, round);
  tell(run.live);
  const step = STEPS[vertex.kind] as KindStep<VertexKind>;
  return step(run, walk, vertex, base, summary);
}

/** The node as the walk's graph holds it, handed to its activity; a graph read before configs were handed has none. */
function handed<Kind extends ExecutedKind | JudgingKind>(vertex: Vertex & { kind: Kind }): { node?: HandedNode<Kind> } {
  return vertex.config ? { node: { kind: vertex.kind, config: vertex.config } } : {};
}

/** Gates and routers judge the upstream output, with no process. */
function judgeUpstream(run: LoopRun, _walk: SpecWalk, vertex: Vertex & { kind: JudgingKind }, base: ExecutionBase, summary: string) {
  return run.activities.evaluation(summary).evaluateNode({ ...base, nodeName: vertex.name, judgeCommitRights: false, ...handed(vertex) });
}

/** An agent or check; one that failed for infrastructure reasons runs again, each attempt under its own run key. */
function runProcess(
  run: LoopRun,
  walk: SpecWalk,
  vertex: Vertex & { kind: ExecutedKind },
  base: ExecutionBase,
  summary: string,
): Promise<NodeOutcome> {
  const judgeCommitRights = walk.graph.commitRightsEnforced;
  const attempt = (runKey: string, what: string) =>
    run.activities.execution(what).runNode({ ...base, runKey, nodeName: vertex.name, judgeCommitRights, ...handed(vertex) });
  return withInfraRetries(walk.graph.infraRetries, walk.graph.infraBackoffSeconds, (number) =>
    number === 1 ? attempt(base.runKey, summary) : attempt(`${base.runKey}:infra-${number}`, `${summary}, infra attempt ${number}`),
  );
}
