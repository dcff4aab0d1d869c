// Builds the workflow bundles ahead of time (`npm run build`), so workers start without running webpack:
// the workflows as they are, and the same with Temporal's tracing interceptors for workers that trace.
// Two bundles, so a worker that does not trace runs exactly the code it ran before tracing existed.
import { mkdirSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, type WorkerOptions } from '@temporalio/worker';
import { compiledPath, PROJECT_ROOT } from './project';
import { workflowTracingModule } from './telemetry/tracing';

export const WORKFLOW_BUNDLE_PATH = path.join(PROJECT_ROOT, 'dist', 'workflow-bundle.js');
export const TRACED_WORKFLOW_BUNDLE_PATH = path.join(PROJECT_ROOT, 'dist', 'workflow-bundle-traced.js');
export const WORKFLOWS_PATH = compiledPath('workflows', 'index.js');

/**
 * The prebuilt bundle when there is one, else the workflow sources (bundled at worker start, with
 * the tracing interceptors when `traced`).
 */
export function workflowSource(traced = false): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'interceptors'> {
  const bundle = traced ? TRACED_WORKFLOW_BUNDLE_PATH : WORKFLOW_BUNDLE_PATH;
  if (existsSync(bundle)) return { workflowBundle: { codePath: bundle } };
  return { workflowsPath: WORKFLOWS_PATH, ...(traced && { interceptors: { workflowModules: [workflowTracingModule()] } }) };
}

async function writeBundle(file: string, workflowInterceptorModules: string[]): Promise<void> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules, logger: quietLogger });
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, code);
}

async function main(): Promise<void> {
  await writeBundle(WORKFLOW_BUNDLE_PATH, []);
  await writeBundle(TRACED_WORKFLOW_BUNDLE_PATH, [workflowTracingModule()]);
}

const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
