// The on_completed hook: one agent run per completed loop run, recorded beside the graph's node runs.
import { Context } from '@temporalio/activity';
import { DEFAULT_HOOK_TIMEOUT_MINUTES } from '../domain/defaults';
import { getLoop } from '../store/loops-repository';
import { findNodeRunByKey, updateNodeRun } from '../store/node-runs-repository';
import { getSpec } from '../store/specs-repository';
import { updateLoopRun } from '../store/loop-runs-repository';
import { executeAgent } from './agent-node';
import type { ActivityDeps } from './deps';
import { notifyHuman } from './notify';
import { closeNodeRun, openNodeRun } from './run-record';

export const HOOK_NODE_NAME = 'on_completed';

export function completionHookActivities(deps: ActivityDeps) {
  return {
    async runCompletionHook(input: { loopId: string; loopRunId: string; completedSpecIds: string[]; workdir?: string }): Promise<void> {
      const stored = await getLoop(deps.db, input.loopId);
      const loop = stored && input.workdir ? { ...stored, workdir: input.workdir } : stored;
      const hook = loop?.on_completed;
      // Runs recorded before the local-bookkeeping patch call this for every completion.
      if (!loop || !hook) return;
      const runKey = `hook:${input.loopRunId}`;
      const earlier = await findNodeRunByKey(deps.db, runKey);
      if (earlier && earlier.status !== 'running') return;

      const completedSpecs = await completedSpecLines(deps, input.completedSpecIds);
      const { run, adopted } = await openNodeRun(
        deps,
        { loopId: loop.id, specId: null, nodeId: null, nodeName: HOOK_NODE_NAME, kind: 'hook' },
        {
          runKey,
          workflowId: Context.current().info.workflowExecution?.workflowId ?? '',
          round: 1,
          infraAttempt: Context.current().info.attempt,
        },
      );
      notifyHuman('Loop completed', `${loop.name} completed; on_completed hook launched.`);
      const node = {
        id: HOOK_NODE_NAME,
        loop_id: loop.id,
        name: HOOK_NODE_NAME,
        kind: 'agent' as const,
        position: 0,
        ensemble_id: null,
        member_index: null,
        config: {
          platform: hook.platform,
          model: hook.model,
          prompt_template: hook.prompt,
          timeout_minutes: hook.timeout_minutes ?? DEFAULT_HOOK_TIMEOUT_MINUTES,
        },
      };
      const result = await executeAgent(deps, {
        scene: { loop, node },
        run,
        values: { loop_name: loop.name, workdir: loop.workdir, completed_specs: completedSpecs },
        stragglerMinutes: null,
        recordInput: async (text) => void (await updateNodeRun(deps.db, run.id, { input: text })),
        recordProcessGroup: async (pgid) => void (await updateNodeRun(deps.db, run.id, { pgid })),
        recordOutputTail: async (tail) => void (await updateNodeRun(deps.db, run.id, { stdout: tail })),
        adopted,
      });
      await closeNodeRun(deps, run, { ...result, input: null, headAfter: null, committedHead: null });
      await updateLoopRun(deps.db, input.loopRunId, { hook_fired: true });
      if (result.verdict.outcome === 'fail') notifyHuman('on_completed hook failed', `${loop.name}: ${result.verdict.reason}`);
    },
  };
}

async function completedSpecLines(deps: ActivityDeps, specIds: string[]): Promise<string> {
  const specs = await Promise.all(specIds.map((id) => getSpec(deps.db, id)));
  const lines = specs
    .filter((spec) => spec !== undefined)
    .map((spec) => `${spec.name}: ${(spec.summary ?? spec.content).trim().split('\n')[0] || '(no summary)'}`);
  return lines.length ? lines.join('\n') : '(none)';
}
