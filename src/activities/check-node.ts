// Check nodes: the command runs under `bash -c` in the workdir; placeholder values travel only in the environment.
import { Context } from '@temporalio/activity';
import { DEFAULT_CHECK_TIMEOUT_MINUTES } from '../domain/defaults';
import { CheckConfig } from '../domain/node';
import { renderTemplate, toShellScript } from '../graph/templates';
import { checkVerdict } from '../graph/verdicts';
import type { ActivityDeps } from './deps';
import type { Execution, ExecutionResult } from './execution';
import { placeholderEnvironment } from './large-values';
import { runInProcessGroup } from './process-group';

export async function executeCheck(deps: ActivityDeps, execution: Execution): Promise<ExecutionResult> {
  const config = CheckConfig.parse(execution.scene.node.config);
  const limitMinutes = config.timeout_minutes ?? DEFAULT_CHECK_TIMEOUT_MINUTES;
  const script = toShellScript(config.command);
  await execution.recordInput(renderTemplate(config.command, execution.values));
  const result = await runInProcessGroup('bash', ['-c', script], {
    cwd: execution.scene.loop.workdir,
    env: { ...process.env, ...placeholderEnvironment({ home: deps.home, nodeRunId: execution.run.id }, execution.values) },
    timeoutMs: limitMinutes * 60_000,
    signal: Context.current().cancellationSignal,
    onSpawn: execution.recordProcessGroup,
    onTick: () => Context.current().heartbeat(),
  });
  return { ...result, verdict: checkVerdict({ ...result, limitMinutes, straggler: false }), unreported: false };
}
