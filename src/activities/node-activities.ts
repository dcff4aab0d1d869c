// The node activities: run an agent or check, evaluate a gate or router, join an ensemble's quorum.
import { Context } from '@temporalio/activity';
import { GateConfig, RouterConfig } from '../domain/node';
import { outputText } from '../graph/feedback';
import { evaluateGate, routeLabel } from '../graph/outcomes';
import { headMoveVerdict } from '../graph/verdicts';
import { getNodeRun, updateNodeRun } from '../store/node-runs-repository';
import type { NodeRun } from '../domain/node-run';
import type { JoinQuorumInput, MemberWorktrees, NodeOutcome, RunNodeInput } from '../contract';
import { diffAgainstStart } from '../git/member-worktrees';
import { dirtyPaths, readHead } from '../git/workdir';
import type { ProcessRecord } from '../process/supervision';
import { describeNodeActivity } from '../telemetry/spans';
import { executeAgent } from './agent-node';
import { executeCheck } from './check-node';
import type { ActivityDeps } from './deps';
import { recordedExecution } from './execution';
import { loadScene, templateValues, type NodeScene } from './node-scene';
import { buildQuorum } from './quorum';
import { closeExecution, closeNodeRun, failOrRethrow, openNodeRun, subjectOf } from './run-record';

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
      stragglerMinutes: input.stragglerMinutes,
      adopted,
    });
    const result = scene.node.kind === 'check' ? await executeCheck(deps, execution) : await executeAgent(deps, execution);
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
    deps.workdirScans.start(scene.loop.id, async () => {
      await updateNodeRun(deps.db, run.id, { dirty_paths: await dirtyPaths(scene.loop.workdir) });
    });
    return outcome;
  }

  /** Gates and routers judge the upstream output; they pass it on unchanged as their own output. */
  async function evaluateNode(input: RunNodeInput): Promise<NodeOutcome> {
    const scene = await loadScene(deps, input);
    describeNodeActivity({ ...scene, round: input.round });
    const { run } = await openNodeRun(deps, subjectOf(scene), { ...input, activityAttempt: Context.current().info.attempt });
    return judgeUpstream(scene, run).catch(failOrRethrow(deps, run));
  }

  async function judgeUpstream(scene: NodeScene, run: NodeRun): Promise<NodeOutcome> {
    const upstream = scene.previous ? outputText(scene.previous) : '';
    const verdict =
      scene.node.kind === 'gate'
        ? evaluateGate(GateConfig.parse(scene.node.config), upstream)
        : routed(RouterConfig.parse(scene.node.config), upstream);
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
    const members = await Promise.all(input.memberRunIds.map((id) => getNodeRun(deps.db, id)));
    const diffs = input.memberWorktrees && (await memberDiffs(input.memberWorktrees));
    const quorum = await buildQuorum(
      deps,
      members.filter((m) => m !== undefined),
      { minPass: input.minPass, quorumMet: input.quorumMet, diffs },
    );
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
function memberDiffs({ start, workdirs }: MemberWorktrees): Promise<string[]> {
  return Promise.all(
    workdirs.map((workdir) =>
      diffAgainstStart(workdir, start).catch(
        (error: unknown) => `[canopy] no diff: ${error instanceof Error ? error.message : String(error)}\n`,
      ),
    ),
  );
}

function routed(config: RouterConfig, upstream: string) {
  const { label, matched_token } = routeLabel(config, upstream);
  return { outcome: label, reason: matched_token ? `matched token '${matched_token}'` : 'no token matched; fallback' };
}
