// Check nodes: the command runs under `bash -c` in the workdir; placeholder values travel only in the environment.
import { DEFAULT_CHECK_TIMEOUT_MINUTES } from '../domain/defaults';
import { CheckConfig } from '../node-kinds/check';
import { renderTemplate, toShellScript } from '../graph/templates';
import { checkVerdict } from '../graph/verdicts';
import { startSupervised } from '../process/supervision';
import type { ActivityDeps } from './deps';
import { idleLimit, superviseInRunDirectory, type Execution, type ExecutionResult, type ProcessLimits } from './execution';
import { placeholderEnvironment } from './large-values';

export async function executeCheck(deps: ActivityDeps, execution: Execution): Promise<ExecutionResult> {
  const config = CheckConfig.parse(execution.scene.node.config);
  await execution.recordInput(renderTemplate(config.command, execution.values));
  const script = toShellScript(config.command);
  return executeShell(deps, execution, {
    script,
    env: placeholderEnvironment({ home: deps.home, nodeRunId: execution.run.id }, execution.values, script),
    limits: {
      minutes: config.timeout_minutes ?? DEFAULT_CHECK_TIMEOUT_MINUTES,
      idleMinutes: idleLimit(execution, config.idle_timeout_minutes),
    },
  });
}

/** A script run by `bash -c` in the workdir under its own supervisor, passing on exit 0; `env` is added to the worker's. */
export async function executeShell(
  deps: ActivityDeps,
  execution: Execution,
  { script, env, limits }: { script: string; env: Record<string, string>; limits: ProcessLimits },
): Promise<ExecutionResult> {
  return superviseInRunDirectory(
    deps,
    execution,
    limits,
    (supervision) =>
      startSupervised('bash', ['-c', script], {
        ...supervision,
        cwd: execution.scene.loop.workdir,
        env: { ...process.env, ...env },
        onSpawn: execution.recordProcessGroup,
      }),
    (result) => ({ ...result, verdict: checkVerdict({ ...result, limitMinutes: limits.minutes, straggler: false }), unreported: false }),
  );
}
