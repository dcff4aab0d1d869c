// Check nodes: the command runs under `bash -c` in the workdir; placeholder values travel only in the environment.
import { DEFAULT_CHECK_TIMEOUT_MINUTES } from '../domain/defaults';
import { CheckConfig } from '../domain/node';
import { renderTemplate, toShellScript } from '../graph/templates';
import { checkVerdict } from '../graph/verdicts';
import type { ActivityDeps } from './deps';
import { supervisionOf, type Execution, type ExecutionResult } from './execution';
import { placeholderEnvironment } from './large-values';
import { openRunDirectory, removeRunDirectory } from './run-directory';
import { adoptSupervised, startSupervised } from './supervision';

export async function executeCheck(deps: ActivityDeps, execution: Execution): Promise<ExecutionResult> {
  const config = CheckConfig.parse(execution.scene.node.config);
  const limitMinutes = config.timeout_minutes ?? DEFAULT_CHECK_TIMEOUT_MINUTES;
  const script = toShellScript(config.command);
  await execution.recordInput(renderTemplate(config.command, execution.values));
  const runDir = openRunDirectory(deps.home, execution.run.id);
  try {
    return await superviseCheck(deps, execution, script, { runDir, limitMinutes });
  } finally {
    removeRunDirectory(deps.home, execution.run.id);
  }
}

async function superviseCheck(
  deps: ActivityDeps,
  execution: Execution,
  script: string,
  { runDir, limitMinutes }: { runDir: string; limitMinutes: number },
): Promise<ExecutionResult> {
  const supervision = supervisionOf(execution, runDir, limitMinutes);
  const result = execution.adopted
    ? await adoptSupervised(execution.adopted, supervision)
    : await startSupervised('bash', ['-c', script], {
        ...supervision,
        cwd: execution.scene.loop.workdir,
        env: { ...process.env, ...placeholderEnvironment({ home: deps.home, nodeRunId: execution.run.id }, execution.values) },
        onSpawn: execution.recordProcessGroup,
      });
  return { ...result, verdict: checkVerdict({ ...result, limitMinutes, straggler: false }), unreported: false };
}
