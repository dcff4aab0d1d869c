// The activities of an approval node: opening it (its message rendered, the node run and the loop
// waiting) and recording the decision. Between the two the workflow waits with nothing running.
import { Context } from '@temporalio/activity';
import type { CloseApprovalInput, NodeOutcome, OpenApprovalInput } from '../contract';
import { outputText } from '../graph/feedback';
import { renderTemplate } from '../graph/templates';
import { changesSince } from '../git/working-tree';
import { ApprovalConfig } from '../node-kinds/approval';
import { setLoopStatus } from '../store/loops-repository';
import { findNodeRunByKey, getNodeRun, insertNodeRun, updateNodeRun } from '../store/node-runs-repository';
import { describeNodeActivity } from '../telemetry/spans';
import type { ActivityDeps } from './deps';
import { announce } from './notifications';
import { loadScene, templateValues } from './node-scene';
import { closeNodeRun, newRunOf, subjectOf } from './run-record';

export function approvalActivities(deps: ActivityDeps) {
  async function openApproval(input: OpenApprovalInput): Promise<{ nodeRunId: string }> {
    const scene = await loadScene(deps, input);
    describeNodeActivity({ ...scene, round: input.round });
    const config = ApprovalConfig.parse(input.node.config);
    const values = { ...templateValues(scene, input), changes: await changesOfSpec(scene.loop.workdir, input.specStartHead) };
    const opened = {
      status: 'waiting' as const,
      input: renderTemplate(config.message_template, values),
      stdout: scene.previous ? outputText(scene.previous) : '',
      deadline: input.deadline,
    };
    // A retry finds the record its first attempt made.
    const earlier = await findNodeRunByKey(deps.db, input.runKey);
    const run = earlier
      ? await updateNodeRun(deps.db, earlier.id, opened)
      : await insertNodeRun(deps.db, {
          ...newRunOf(subjectOf(scene), input),
          ...opened,
          activity_attempt: Context.current().info.attempt,
          executed_host: deps.hostId,
        });
    await setLoopStatus(deps.db, input.loopId, 'waiting');
    await announce(deps, {
      event: 'approval_needed',
      loop: scene.loop,
      spec: { id: scene.spec.id, name: scene.spec.name },
      node: input.nodeName,
      reason: opened.input,
      command: `canopy approve ${input.loopId} --node ${input.nodeName}  |  canopy reject ${input.loopId} --node ${input.nodeName} --comment "…"`,
      workflowId: input.workflowId,
    });
    return { nodeRunId: run!.id };
  }

  async function closeApproval(input: CloseApprovalInput): Promise<NodeOutcome> {
    const run = (await getNodeRun(deps.db, input.nodeRunId))!;
    const approved = input.decision === 'approve';
    const comment = input.comment?.trim() || null;
    await updateNodeRun(deps.db, run.id, { decided_by: input.by, decided_at: input.decidedAt });
    const outcome = await closeNodeRun(deps, run, {
      verdict: approved
        ? { outcome: 'pass', failureKind: null, reason: `approved by ${input.by}${comment ? `: ${comment}` : ''}` }
        : { outcome: 'fail', failureKind: 'rejected', reason: rejection(input.by, comment) },
      input: null,
      // Approved, the upstream output is passed on, as a gate passes it; rejected, the comment is what the next node is told.
      stdout: approved ? run.stdout : (comment ?? rejection(input.by, comment)),
      stderr: '',
      exitCode: null,
      headAfter: null,
      committedHead: null,
      unreported: false,
    });
    await setLoopStatus(deps.db, input.loopId, 'running');
    return outcome;
  }

  return { openApproval, closeApproval };
}

function rejection(by: string, comment: string | null): string {
  if (by === 'timeout') return 'not decided before its deadline, so its on_timeout rejected it';
  return `rejected by ${by}${comment ? `: ${comment}` : ''}`;
}

/** What changed in the workdir since the spec started (committed or not, new files included), for {{changes}}. */
async function changesOfSpec(workdir: string, specStartHead: string): Promise<string> {
  if (!specStartHead) return '(the workdir is not a git repository: no changes to show)';
  try {
    return (await changesSince(workdir, specStartHead)).trimEnd() || '(no changes since the spec started)';
  } catch (error) {
    return `(the changes could not be read: ${error instanceof Error ? error.message : String(error)})`;
  }
}
