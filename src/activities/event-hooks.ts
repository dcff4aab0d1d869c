// A loop's event hooks: each hook of the event runs once, in order, recorded as a node run of kind
// `hook` beside the graph's. A failed hook warns and notifies; it never changes the loop's status.
import { Context } from '@temporalio/activity';
import { DEFAULT_CHECK_TIMEOUT_MINUTES, DEFAULT_HOOK_TIMEOUT_MINUTES } from '../domain/defaults';
import { hookRunName, isCommandHook, type Hook, type HookEvent } from '../domain/hooks';
import type { Loop } from '../domain/loop';
import { redact } from '../graph/redact';
import { hookVariable, HOOK_PLACEHOLDERS, renderTemplate, toShellScript } from '../graph/templates';
import { updateLoopRun } from '../store/loop-runs-repository';
import { getLoop } from '../store/loops-repository';
import { findNodeRunByKey } from '../store/node-runs-repository';
import { getSpec } from '../store/specs-repository';
import type { RunHooksInput } from '../contract';
import { notifyHuman } from '../notify/channels/desktop';
import { executeAgent } from './agent-node';
import { executeShell } from './check-node';
import type { ActivityDeps } from './deps';
import { idleLimit, recordedExecution, type Execution, type ExecutionResult } from './execution';
import { placeholderEnvironment } from './large-values';
import { workingIn } from './node-scene';
import { closeExecution, failOrRethrow, openNodeRun } from './run-record';

export function eventHookActivities(deps: ActivityDeps) {
  async function runHooks(input: RunHooksInput): Promise<void> {
    /** Each (run, event occurrence, hook) has its own key: the record a retry finds. */
    const keyOf = (index: number) => `hook:${input.loopRunId}:${input.event}:${input.occurrence}:${index}`;
    const stored = await getLoop(deps.db, input.loopId);
    const hooks = stored?.hooks[input.event] ?? [];
    if (!stored || !hooks.length) return;
    const loop = workingIn(stored, input.workdir);
    const values = await hookValues(deps, loop, input);
    for (const [index, hook] of hooks.entries()) await fireHook(loop, input, { index, runKey: keyOf(index) }, hook, values);
    if (input.event === 'on_completed') await updateLoopRun(deps.db, input.loopRunId, { hook_fired: true });
  }

  /** A retry of the activity skips the hooks an earlier attempt finished and adopts the one it left running. */
  async function fireHook(
    loop: Loop,
    input: RunHooksInput,
    { index, runKey }: { index: number; runKey: string },
    hook: Hook,
    values: Record<string, string>,
  ): Promise<void> {
    const earlier = await findNodeRunByKey(deps.db, runKey);
    if (earlier && earlier.status !== 'running') return;
    const name = hookRunName(input.event, index);
    const activity = Context.current().info;
    const { run, adopted } = await openNodeRun(
      deps,
      {
        loopId: loop.id,
        specId: input.facts.specId ?? null,
        nodeId: null,
        nodeName: name,
        kind: 'hook',
        hook: { event: input.event, index },
      },
      { runKey, workflowId: activity.workflowExecution?.workflowId ?? '', round: 1, activityAttempt: activity.attempt },
    );
    const execution = recordedExecution(deps, {
      scene: { loop, node: hookNode(loop, name, hook) },
      run,
      values,
      humanFeedback: [],
      stragglerMinutes: null,
      adopted,
    });
    const outcome = await execute(hook, execution, input.event).then(
      (result) => closeExecution(deps, run, result, execution.renderedInput()),
      failOrRethrow(deps, run),
    );
    if (outcome.outcome === 'fail') notifyHuman(`${name} hook failed`, `${loop.name}: ${outcome.reason ?? 'no reason given'}`);
  }

  async function execute(hook: Hook, execution: Execution, event: HookEvent): Promise<ExecutionResult> {
    if (!isCommandHook(hook)) return executeAgent(deps, execution);
    const { values, run } = execution;
    // Named hook_<value> so they travel as CANOPY_HOOK_<VALUE>, apart from a check's variables.
    const hookValues: Record<string, string> = { hook_event: event };
    for (const [name, value] of Object.entries(values)) hookValues[`hook_${name}`] = value;
    await execution.recordInput(renderTemplate(hook.command, values));
    const script = toShellScript(hook.command, hookVariable);
    return executeShell(deps, execution, {
      script,
      env: placeholderEnvironment({ home: deps.home, nodeRunId: run.id }, hookValues, script),
      limits: {
        minutes: hook.timeout_minutes ?? DEFAULT_CHECK_TIMEOUT_MINUTES,
        idleMinutes: idleLimit(execution, hook.idle_timeout_minutes),
      },
    });
  }

  return {
    runHooks: (input: RunHooksInput) => runHooks(input),
  };
}

/** A hook as the node executors see it: an agent node, or a check whose command the hook gives. */
function hookNode(loop: Loop, name: string, hook: Hook) {
  const node = { id: name, loop_id: loop.id, name, position: 0, ensemble_id: null, member_index: null };
  if (isCommandHook(hook)) return { ...node, kind: 'check' as const, config: { command: hook.command } };
  return {
    ...node,
    kind: 'agent' as const,
    config: {
      platform: hook.platform,
      model: hook.model,
      prompt_template: hook.prompt!,
      timeout_minutes: hook.timeout_minutes ?? DEFAULT_HOOK_TIMEOUT_MINUTES,
      idle_timeout_minutes: hook.idle_timeout_minutes,
    },
  };
}

/** The values the event gives its hooks; reasons and blockers arrive redacted, as they entered the workflow. */
async function hookValues(deps: ActivityDeps, loop: Loop, input: RunHooksInput): Promise<Record<string, string>> {
  const names = HOOK_PLACEHOLDERS[input.event];
  const { facts } = input;
  const known: Record<string, string | null | undefined> = {
    loop_name: loop.name,
    loop_id: loop.id,
    workdir: loop.workdir,
    completed_specs: names.includes('completed_specs') ? await completedSpecLines(deps, input.completedSpecIds) : '',
    node: facts.node,
    failure_kind: facts.failureKind,
    reason: facts.reason && redact(facts.reason),
    blocker: facts.blocker && redact(facts.blocker),
    spec_name: facts.specName,
    spec_id: facts.specId,
  };
  return Object.fromEntries(names.map((name) => [name, known[name] ?? '']));
}

async function completedSpecLines(deps: ActivityDeps, specIds: string[]): Promise<string> {
  const specs = await Promise.all([...new Set(specIds)].map((id) => getSpec(deps.db, id)));
  const lines = specs
    .filter((spec) => spec !== undefined)
    .map((spec) => `${spec.name}: ${(spec.summary ?? spec.content).trim().split('\n')[0] || '(no summary)'}`);
  return lines.length ? lines.join('\n') : '(none)';
}
