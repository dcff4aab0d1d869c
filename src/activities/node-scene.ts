// Everything one node execution reads from the store, fresh at run time, and the template values it yields.
// The node's kind and config are the ones the workflow handed it, never re-read: the walk chose by them.
import { ApplicationFailure } from '@temporalio/activity';
import type { Loop } from '../domain/loop';
import type { NodeRun } from '../domain/node-run';
import { feedbackJson, outputText } from '../graph/feedback';
import type { StoredNode } from '../graph/stored-graph';
import { receivable } from '../graph/templates';
import { getNodeByName } from '../store/graph-repository';
import { getLoop } from '../store/loops-repository';
import { getNodeRun } from '../store/node-runs-repository';
import { getSpec, type StoredSpec } from '../store/specs-repository';
import type { HandedNode, RunContext } from '../contract';
import type { ActivityDeps } from './deps';

export interface NodeScene {
  loop: Loop;
  node: StoredNode;
  spec: StoredSpec;
  previous: NodeRun | null;
}

export async function loadScene(
  deps: ActivityDeps,
  input: RunContext & { nodeName: string; previousRunId: string | null; node?: HandedNode<string> },
): Promise<NodeScene> {
  const [loop, node, spec, previous] = await Promise.all([
    getLoop(deps.db, input.loopId),
    getNodeByName(deps.db, input.loopId, input.nodeName),
    getSpec(deps.db, input.specId),
    input.previousRunId ? getNodeRun(deps.db, input.previousRunId) : undefined,
  ]);
  // A graph edited away under a running loop is a lasting condition, not a crash: retrying cannot help.
  if (!loop) throw ApplicationFailure.nonRetryable(`Loop ${input.loopId} no longer exists.`, 'missing');
  if (!node) throw ApplicationFailure.nonRetryable(`Node '${input.nodeName}' no longer exists in loop ${loop.name}.`, 'missing');
  if (!spec) throw ApplicationFailure.nonRetryable(`Spec ${input.specId} no longer exists.`, 'missing');
  const handed = input.node ? { ...node, kind: input.node.kind as StoredNode['kind'], config: input.node.config } : node;
  return { loop: workingIn(loop, input.workdir), node: handed, spec, previous: previous ?? null };
}

/** The loop as a run sees it: a sandboxed run works in its worktree, so every reader of the workdir uses that. */
export function workingIn(loop: Loop, workdir: string | undefined): Loop {
  return workdir ? { ...loop, workdir } : loop;
}

/** The values of the node template placeholders (check commands also get the two heads and the paths dirty at the start). */
export function templateValues(scene: NodeScene, input: RunContext & { round: number }): Record<string, string> {
  const { loop, node, spec, previous } = scene;
  return {
    loop_name: loop.name,
    workdir: loop.workdir,
    spec_id: spec.id,
    spec_name: spec.name,
    spec_content: spec.content || spec.name,
    node_id: node.id,
    node_name: node.name,
    round: String(input.round),
    previous_output: previous ? receivable(outputText(previous)) : '',
    previous_feedback: previous ? feedbackJson(previous) : '',
    spec_start_head: input.specStartHead,
    spec_committed_head: input.specCommittedHead,
    spec_start_dirty: input.specStartDirty.join('\n'),
  };
}
