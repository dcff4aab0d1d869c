// Builds the workflow bundle ahead of time (`npm run build`), so workers start without running webpack.
import { mkdirSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { PROJECT_ROOT } from './project';

export const WORKFLOW_BUNDLE_PATH = path.join(PROJECT_ROOT, 'dist', 'workflow-bundle.js');
export const WORKFLOWS_PATH = require.resolve('./workflows');

/** The prebuilt bundle when there is one, else the workflow sources (bundled at worker start). */
export function workflowSource(): { workflowBundle: { codePath: string } } | { workflowsPath: string } {
  return existsSync(WORKFLOW_BUNDLE_PATH) ? { workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH } } : { workflowsPath: WORKFLOWS_PATH };
}

async function main(): Promise<void> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietLogger });
  mkdirSync(path.dirname(WORKFLOW_BUNDLE_PATH), { recursive: true });
  writeFileSync(WORKFLOW_BUNDLE_PATH, code);
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
