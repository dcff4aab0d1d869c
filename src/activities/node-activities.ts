// The node activities: run an agent or check, evaluate a gate or router, join an ensemble's quorum. Each
// runs the kind the workflow handed it, through a table keyed by kind.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { outputText } from '../graph/feedback';
import type { StoredNode } from '../graph/stored-graph';
import type { ExecutedKind, JudgingKind } from '../node-kinds/catalogue';
import { evaluateGate, GateConfig } from '../node-kinds/gate';
import { routeLabel, RouterConfig } from '../node-kinds/router';
import { headMoveVerdict } from '../graph/verdicts';
import { getNodeRun, updateNodeRun } from '../store/node-runs-repository';
import type { NodeRun } from '../domain/node-run';
import type { EvaluateNodeInput, JoinQuorumInput, MemberWorktrees, NodeOutcome, RunNodeInput } from '../contract';
import { diffAgainstStart } from '../git/member-worktrees';
import { dirtyPaths, readHead } from '../git/workdir';
import type { ProcessRecord } from '../process/supervision';
import { describeNodeActivity } from '../telemetry/spans';
import { executeAgent } from './agent-node';
import { executeCheck } from './check-node';
import type { ActivityDeps } from './deps';
import { getNode } from '../store/graph-repository';
import { recordedExecution, type Execution, type ExecutionResult } from './execution';
import { loadScene, templateValues, type NodeScene } from './node-scene';
import { announce } from './notifications';
import { buildQuorum } from './quorum';
import { closeExecution, closeNodeRun, failOrRethrow, openNodeRun, subjectOf } from './run-record';

/** How each kind that runs a process runs it; the compiler refuses a kind without an entry. */
const EXECUTORS: Readonly<Record<ExecutedKind, (deps: ActivityDeps, execution: Execution) => Promise<ExecutionResult>>> = {
  agent: executeAgent,
  check: executeCheck,
};

interface Judgement {
  outcome: string;
  reason: string;
}

/** How each kind that judges the upstream output judges it. */
const JUDGES: Readonly<Record<JudgingKind, (config: Record<string, unknown>, upstream: string) => Judgement>> = {
  gate: (config, upstream) => evaluateGate(GateConfig.parse(config), upstream),
  router: (config, upstream) => routed(RouterConfig.parse(config), upstream),
};

/** The table's entry for the node's kind. Only a stored node standing in for an unhanded one can miss. */
function entryFor<Kind extends string, Entry>(table: Readonly<Record<Kind, Entry>>, node: StoredNode, what: string): Entry {
  if (Object.hasOwn(table, node.kind)) return table[node.kind as Kind];
  throw ApplicationFailure.nonRetryable(`Node '${node.name}' is a ${node.kind} node, which does not ${what}.`, 'invalid_config');
}

export function nodeActivities(deps: ActivityDeps) {
  async function runNode(input: RunNodeInput): Promise<NodeOutcome> {
    const scene = await loadScene(deps, input);
    describeNodeActivity({ ...scene, round: input.round });
    const headBefore = await readHead(scene.loop.workdir);
    const { run, adopted } = await openNodeRun(deps, subjectOf(scene), {
      ...input,
      activityAttempt: Context.current().info.attempt,
      headBefore,
    });
    // An adopted process may have moved HEAD already: judge it from where its attempt began.
    return executeProcess(scene, run, input, adopted ? (run.head_before ?? headBefore) : headBefore, adopted).catch(
      failOrRethrow(deps, run),
    );
  }

  async function executeProcess(
    scene: NodeScene,
    run: NodeRun,
    input: RunNodeInput,
    headBefore: string,
    adopted: ProcessRecord | null,
  ): Promise<NodeOutcome> {
    const execution = recordedExecution(deps, {
      scene,
      run,
      values: templateValues(scene, input),
      humanFeedback: (input.humanFeedback ?? []).map((remark) => remark.message),
      stragglerMinutes: input.stragglerMinutes,
      adopted,
    });
    const result = await entryFor(EXECUTORS, scene.node, 'run a process')(deps, execution);
    const outcome = await closeExecution(deps, run, result, execution.renderedInput(), async () => {
      const headAfter = await readHead(scene.loop.workdir);
      const head = headMoveVerdict({
        subject: `Node '${scene.node.name}'`,
        hasCommitRights: scene.node.config.commit_rights === true,
        enforced: input.judgeCommitRights,
        before: headBefore,
        after: headAfter,
      });
      return {
        verdict: head.violation ?? result.verdict,
        stdout: head.violation ? `${result.stdout}\n[canopy] ${head.violation.reason}\n` : result.stdout,
        headAfter,
        committedHead: head.committedHead,
      };
    });
    if (outcome.failureKind === 'idle')
      await announce(deps, {
        event: 'idle_killed',
        loop: scene.loop,
        spec: { id: scene.spec.id, name: scene.spec.name },
        node: scene.node.name,
        reason: outcome.reason,
        command: `canopy loop run-get ${run.id}`,
        workflowId: input.workflowId,
      });
    deps.workdirScans.start(scene.loop.id, async () => {
      await updateNodeRun(deps.db, run.id, { dirty_paths: await dirtyPaths(scene.loop.workdir) });
    });
    return outcome;
  }

  /** Gates and routers judge the upstream output; they pass it on unchanged as their own output. */
  async function evaluateNode(input: EvaluateNodeInput): Promise<NodeOutcome> {
    const scene = await loadScene(deps, input);
    describeNodeActivity({ ...scene, round: input.round });
    const { run } = await openNodeRun(deps, subjectOf(scene), { ...input, activityAttempt: Context.current().info.attempt });
    return judgeUpstream(scene, run).catch(failOrRethrow(deps, run));
  }

  async function judgeUpstream(scene: NodeScene, run: NodeRun): Promise<NodeOutcome> {
    const upstream = scene.previous ? outputText(scene.previous) : '';
    const verdict = entryFor(JUDGES, scene.node, 'judge the upstream output')(scene.node.config, upstream);
    return closeNodeRun(deps, run, {
      verdict: { outcome: verdict.outcome, failureKind: verdict.outcome === 'fail' ? 'gate' : null, reason: verdict.reason },
      input: scene.previous ? `output of '${scene.previous.node_name}'` : '(no upstream output)',
      stdout: upstream,
      stderr: '',
      exitCode: null,
      headAfter: null,
      committedHead: null,
      unreported: false,
    });
  }

  /** Consolidates the members' outputs; commit rights are judged for the ensemble as a whole. */
  async function joinQuorum(input: JoinQuorumInput): Promise<NodeOutcome> {
    const scene = await loadScene(deps, { ...input, nodeName: input.quorumNode, previousRunId: null });
    describeNodeActivity({ ...scene, round: input.round });
    const { run } = await openNodeRun(deps, subjectOf(scene), {
      ...input,
      activityAttempt: Context.current().info.attempt,
      headBefore: input.headBefore || null,
    });
    return consolidate(scene, run, input).catch(failOrRethrow(deps, run));
  }

  async function consolidate(scene: NodeScene, run: NodeRun, input: JoinQuorumInput): Promise<NodeOutcome> {
    const members = (await Promise.all(input.memberRunIds.map((id) => getNodeRun(deps.db, id)))).filter((m) => m !== undefined);
    const diffs = input.memberWorktrees && (await memberDiffs(deps, input.memberWorktrees, members));
    const quorum = await buildQuorum(deps, members, {
      minPass: input.minPass,
      quorumMet: input.quorumMet,
      diffs,
      turnsAccount: input.turnsAccount,
    });
    const headAfter = input.judgeCommitRights ? await readHead(scene.loop.workdir) : null;
    const head = headMoveVerdict({
      subject: `Ensemble '${input.ensembleName}'`,
      hasCommitRights: false,
      enforced: input.judgeCommitRights,
      before: input.headBefore,
      after: headAfter ?? input.headBefore,
    });
    return closeNodeRun(deps, run, {
      verdict: head.violation ?? quorum.verdict,
      input: `members: ${members.map((m) => m?.node_name).join(', ')}`,
      stdout: head.violation ? `${quorum.document}\n[canopy] ${head.violation.reason}\n` : quorum.document,
      stderr: '',
      exitCode: null,
      headAfter,
      committedHead: null,
      unreported: false,
    });
  }

  return { runNode, evaluateNode, joinQuorum };
}

/** Each isolated member's diff against the tree it started from; a worktree that is gone says so in place of its diff. */
/** Each member run's diff, from the worktree of its member (members that took turns did not all run). */
function memberDiffs(deps: ActivityDeps, { start, workdirs }: MemberWorktrees, runs: NodeRun[]): Promise<string[]> {
  return Promise.all(
    runs.map(async (run) => {
      const node = run.node_id ? await getNode(deps.db, run.node_id) : undefined;
      const index = node?.member_index ?? null;
      const workdir = index === null ? undefined : workdirs[index];
      if (!workdir) return `[canopy] no diff: ${run.node_name} is no longer a member of the ensemble\n`;
      return diffAgainstStart(workdir, start).catch(
        (error: unknown) => `[canopy] no diff: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }),
  );
}

function routed(config: RouterConfig, upstream: string) {
  const { label, matched_token } = routeLabel(config, upstream);
  return { outcome: label, reason: matched_token ? `matched token '${matched_token}'` : 'no token matched; fallback' };
}
