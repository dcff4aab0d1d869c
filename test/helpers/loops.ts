// Building loops for engine tests from export documents, the way users share them.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClientContext } from '../../src/client/context';
import { importLoop } from '../../src/client/export-import-service';
import { FORMAT_VERSION } from '../../src/domain/export-document';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { createSpec } from '../../src/client/specs-service';
import { listNodeRuns, updateNodeRun } from '../../src/store/node-runs-repository';
import type { LoopSettings } from '../../src/domain/loop';
import type { NodeRun } from '../../src/domain/node-run';
import { getLoop } from '../../src/store/loops-repository';
import { waitUntil } from './wait';

export interface LoopShape {
  nodes: { name: string; kind: string; position: number; config: Record<string, unknown> }[];
  edges?: { source: string; target: string; condition?: string; type?: string }[];
  ensembles?: Record<string, unknown>[];
  settings?: LoopSettings;
}

export async function loopWithSpecs(
  ctx: ClientContext,
  workdir: string,
  shape: LoopShape,
  specs: { name: string; content?: string }[],
): Promise<string> {
  const document = {
    format_version: FORMAT_VERSION,
    name: 'engine test',
    description: '',
    ...(shape.settings ? { settings: shape.settings } : {}),
    nodes: shape.nodes,
    edges: (shape.edges ?? []).map((edge) => ({ condition: 'pass', ...edge })),
    ensembles: shape.ensembles ?? [],
  };
  const { loop_id } = await importLoop(ctx, document, { workdir });
  for (const spec of specs) await createSpec(ctx, { loop_id, name: spec.name, content: spec.content ?? '' });
  return loop_id;
}

/** Waits until the loop's stored status is `status`. */
export async function untilLoopStatus(ctx: ClientContext, loopId: string, status: string): Promise<void> {
  await waitUntil(`loop ${loopId} to be ${status}`, async () => (await getLoop(ctx.db, loopId))?.status === status);
}

/** Node runs of a loop, oldest first. */
export async function runsOf(ctx: ClientContext, loopId: string): Promise<NodeRun[]> {
  return (await listNodeRuns(ctx.db, { loopId, limit: 200 })).reverse();
}

export const check = (name: string, position: number, command: string, extra: Record<string, unknown> = {}) => ({
  name,
  kind: 'check',
  position,
  config: { command, timeout_minutes: 1, ...extra },
});

export const agent = (name: string, position: number, prompt: string, extra: Record<string, unknown> = {}) => ({
  name,
  kind: 'agent',
  position,
  config: { platform: 'fake', prompt_template: prompt, timeout_minutes: 1, ...extra },
});

export const approval = (name: string, position: number, extra: Record<string, unknown> = {}) => ({
  name,
  kind: 'approval',
  position,
  config: { message_template: 'Spec {{spec_name}}, round {{round}}. Changed:\n{{changes}}', ...extra },
});

/** Two fake reviewers between `implement` and `tests`, the second taking `slowSeconds` before it passes. */
export const fakeReviewers = (slowSeconds: number) => ({
  name: 'reviewers',
  prompt_template: '@print looks fine',
  entry_from_node: 'implement',
  entry_condition: 'pass',
  on_pass_to: 'tests',
  timeout_minutes: 1,
  members: [
    { platform: 'fake', model: 'fast' },
    { platform: 'fake', model: 'slow', prompt_override: `@sleep ${slowSeconds}\n@print slow but fine` },
  ],
});

/** Nodes run one after the other. */
export const linked = (...nodes: LoopShape['nodes']): LoopShape => ({
  nodes,
  edges: nodes.slice(1).map((node, index) => ({ source: nodes[index].name, target: node.name })),
});

/** Checks run one after the other, each `[name, command]`. */
export const chain = (...steps: [string, string][]): LoopShape =>
  linked(...steps.map(([name, command], index) => check(name, index + 1, command)));

/** Implement, test, and on a failing test fix and loop back to the implementer. */
export const fixLoop = (tests: string, settings?: LoopShape['settings']): LoopShape => ({
  settings,
  nodes: [agent('implementer', 1, '@print round {{round}}'), check('tests', 2, tests), agent('fixer', 3, '@write fixed.txt y')],
  edges: [
    { source: 'implementer', target: 'tests' },
    { source: 'tests', target: 'fixer', condition: 'fail' },
    { source: 'fixer', target: 'implementer', type: 'loopback' },
  ],
});

/** A fixer agent (`fix`, its prompt) whose check `tests` loops back to it on a fail; `head` is added to the fixer's config. */
export const checkedFix = (fix: string, tests: string, settings?: LoopSettings, head: Record<string, unknown> = {}): LoopShape => ({
  settings,
  nodes: [agent('fixer', 1, fix, head), check('tests', 2, tests)],
  edges: [
    { source: 'fixer', target: 'tests' },
    { source: 'tests', target: 'fixer', condition: 'fail', type: 'loopback' },
  ],
});

/** A check that fails the same way, printing the same two lines, until `fixed.txt` is in the workdir. */
export const FAILS_UNTIL_FIXED = "test -f fixed.txt || { echo 'FAIL: fixed.txt is missing'; echo 'expected it at the top'; exit 1; }";

export async function runToEnd(ctx: ClientContext, loopId: string) {
  await startLoopRun(ctx, loopId);
  return waitForLoopRun(ctx, loopId);
}

/** A plain (non-git) workdir. */
export function scratchDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'canopy-work-'));
}

/** Records `costUsd` (and a few tokens) on `node`'s run while it runs, as an agent reporting its usage would. */
export async function spendWhileRunning(ctx: ClientContext, loopId: string, node: string, costUsd: number): Promise<void> {
  const running = (run: NodeRun) => run.node_name === node && run.status === 'running';
  const run = await waitUntil(`${node} to start`, async () => (await runsOf(ctx, loopId)).find(running));
  await updateNodeRun(ctx.db, run.id, { executed_platform: 'stand-in', cost_usd: costUsd, input_tokens: 100, output_tokens: 10 });
}
