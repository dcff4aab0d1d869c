// `loop info`: a loop's status, specs, last run (failing node, reason, resume point) and the live workflow state.
import type { Loop } from '../domain/loop';
import type { Sandbox } from '../domain/sandbox';
import type { SpecStatus } from '../domain/spec';
import { hasBudget } from '../graph/budget';
import { redact } from '../graph/redact';
import type { HookEvent } from '../domain/hooks';
import { latestLoopRun, type LoopRun } from '../store/loop-runs-repository';
import { listHookRunsSince, spendingOf, type Spending } from '../store/node-runs-repository';
import { getQueue } from '../store/queues-repository';
import { sandboxOfRun } from '../store/sandboxes-repository';
import { getSpec, listSpecs } from '../store/specs-repository';
import type { LiveState, ResumePoint } from '../contract';
import type { ClientContext } from './context';
import { hasOpenRun, reconcileLoop } from './closed-runs-service';
import { hostWarnings } from './pollers-service';
import { requireLoop } from './design-service';
import { lastNotifyFailure, type NotifyFailure } from './notifications-service';
import { autorunProgress } from './autorun-service';
import { heldByAnotherLoop } from './workdir-claim-service';
import { loopIdentity, type LoopIdentity } from './loop-identity';
import { loopPicture, type LoopPicture } from './loop-picture-service';
import { readLiveState, readResumePoint } from './runs-service';
import { describeLoopSchedule, type LoopScheduleReport } from './schedule-service';
import { loopUsage, type LoopUsage } from './usage-service';

interface SpecLine {
  id: string;
  name: string;
  status: SpecStatus;
  /** Runs the spec failed in since it was created or last reset; the loop's spec_attempt_limit caps them. */
  failure_count: number;
  /** What every run together may spend on the spec (null: no limit). */
  budget_usd: number | null;
  budget_tokens: number | null;
}

export interface LoopStatusReport extends LoopIdentity {
  specs: SpecLine[];
  last_run: {
    workflow_id: string;
    status: string;
    queue_id: string | null;
    failing_node: string | null;
    failure_kind: string | null;
    reason: string | null;
    resume: Pick<ResumePoint, 'specId' | 'vertex' | 'rounds'> | null;
    hook_fired: boolean;
    /** The hooks the run fired, in order; a failed one is also among the warnings. */
    hook_runs: HookRunLine[];
    started_at: string;
    ended_at: string | null;
    /** The run's page in the Temporal UI, when canopy knows where the UI is. */
    temporal_ui_url: string | null;
    /** The git worktree a sandboxed run works in (sandbox_list has more); null when it worked in the workdir. */
    sandbox: Pick<Sandbox, 'id' | 'status' | 'branch' | 'path'> | null;
  } | null;
  /** Progress of the queue the last run drained, rebuilt from its specs' statuses. */
  queue: { queue_id: string; specs: SpecLine[] } | null;
  /** Tokens and cost of the loop's agent runs, per spec and in all. */
  agent_usage: LoopUsage;
  /** The loop's budgets and what its last run spent against them; null when it has none. */
  budget: BudgetLine | null;
  /** When the loop resumes by itself (a pending autorun, e.g. after a quota reset); null when none. */
  autorun_at: string | null;
  /** The loop's recurring schedule, its next firings and its last firing's outcome; null when it has none. */
  schedule: LoopScheduleReport | null;
  /** What holds the workdir while a scheduled or autorun start of the loop waits for another loop's run to end; null when none waits. */
  waiting_for_workdir: string | null;
  /** The running workflow's own view; null when no run is open or Temporal did not answer. */
  live: LiveState | null;
  /** Why the live view is missing when Temporal did not answer; null when it did. */
  live_unavailable: string | null;
  /** The graph with each vertex's state, as `loop watch` draws it. */
  picture: LoopPicture;
  /** What keeps an open run from going on, e.g. no worker serving the loop's host. */
  warnings: string[];
  /** The newest notification of this loop whose delivery failed (still retried, or given up); null when none did. */
  notify_failure: NotifyFailure | null;
}

export interface BudgetLine extends Pick<Loop['settings'], 'budget_usd' | 'budget_tokens'> {
  /** What the last run's agents used; zero before the first run. */
  spent: Spending;
}

export interface HookRunLine {
  run_id: string;
  /** `on_failed[0]`: the event and the hook's index in its list. */
  hook: string;
  event: HookEvent | null;
  index: number | null;
  status: string;
  reason: string | null;
}

export async function loopStatus(ctx: ClientContext, loopId: string): Promise<LoopStatusReport> {
  const loop = await reconcileLoop(ctx, await requireLoop(ctx.db, loopId));
  const [specs, run, live, warnings, schedule] = await Promise.all([
    listSpecs(ctx.db, { loopId: loop.id }),
    latestLoopRun(ctx.db, loop.id),
    readLiveState(ctx, loop),
    // Like the live state, asked of Temporal only while a run is open: its nodes are what would wait.
    hasOpenRun(loop) ? hostWarnings(ctx, loop) : [],
    describeLoopSchedule(ctx, loop.id),
  ]);
  const resume = readResumePoint(run);
  const hookRuns = run ? await hookRunsOf(ctx, run) : [];
  // Asked of Temporal only for loops an autorun would resume after a stop (a quota reset fails the loop), and for a
  // pending loop whose workdir another loop's run holds, where an autorun that fired waits.
  const askAutorun =
    ['failed', 'paused', 'blocked'].includes(loop.status) || (loop.status === 'pending' && (await heldByAnotherLoop(ctx, loop)));
  const autorun = askAutorun ? await autorunProgress(ctx, loop.id).catch(() => null) : null;
  const firing = schedule?.last_firing;
  return {
    ...loopIdentity(loop),
    specs: specs.map(specLine),
    last_run: run
      ? {
          workflow_id: run.workflow_id,
          status: run.status,
          queue_id: run.queue_id,
          failing_node: run.failing_node,
          failure_kind: run.failure_kind,
          reason: run.failure_reason && redact(run.failure_reason),
          resume:
            'point' in resume && resume.point
              ? { specId: resume.point.specId, vertex: resume.point.vertex, rounds: resume.point.rounds }
              : null,
          hook_fired: run.hook_fired,
          hook_runs: hookRuns,
          started_at: run.started_at,
          ended_at: run.ended_at,
          temporal_ui_url: ctx.config.temporalUiUrl && workflowPageUrl(ctx.config.temporalUiUrl, ctx.config.namespace, run.workflow_id),
          sandbox: await sandboxLine(ctx, run.id),
        }
      : null,
    queue: run?.queue_id ? await queueProgress(ctx, run.queue_id) : null,
    agent_usage: await loopUsage(ctx, loop.id),
    budget: await budgetLine(ctx, loop, run),
    autorun_at: autorun?.at ?? null,
    schedule,
    waiting_for_workdir: (firing?.outcome === 'waiting' ? firing.detail : null) ?? autorun?.waiting ?? null,
    live: live.state,
    live_unavailable: live.unavailable,
    picture: await loopPicture(ctx, loop.id, live),
    warnings: [
      ...warnings,
      ...hookRuns.filter((hook) => hook.status === 'fail').map(hookWarning),
      ...('unusable' in resume ? [resume.unusable] : []),
    ],
    notify_failure: await lastNotifyFailure(ctx, loop.id),
  };
}

async function sandboxLine(ctx: ClientContext, loopRunId: string): Promise<NonNullable<LoopStatusReport['last_run']>['sandbox']> {
  const sandbox = await sandboxOfRun(ctx.db, loopRunId);
  return sandbox ? { id: sandbox.id, status: sandbox.status, branch: sandbox.branch, path: sandbox.path } : null;
}

async function hookRunsOf(ctx: ClientContext, run: LoopRun): Promise<HookRunLine[]> {
  const runs = await listHookRunsSince(ctx.db, run.loop_id, run.started_at);
  return runs.map((hook) => ({
    run_id: hook.id,
    hook: hook.node_name,
    event: hook.hook_event,
    index: hook.hook_index,
    status: hook.status,
    reason: hook.reason && redact(hook.reason),
  }));
}

function hookWarning(hook: HookRunLine): string {
  return `hook ${hook.hook} failed: ${hook.reason ?? 'no reason recorded'} (see \`canopy loop run-get ${hook.run_id}\`)`;
}

/** The Temporal UI's page of a workflow: its latest run. */
export function workflowPageUrl(uiUrl: string, namespace: string, workflowId: string): string {
  return `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

async function queueProgress(ctx: ClientContext, queueId: string): Promise<LoopStatusReport['queue']> {
  const queue = await getQueue(ctx.db, queueId);
  if (!queue) return null;
  const specs = await Promise.all(queue.spec_ids.map((id) => getSpec(ctx.db, id)));
  return { queue_id: queue.id, specs: specs.filter((s) => s !== undefined).map(specLine) };
}

function specLine(spec: SpecLine): SpecLine {
  const { id, name, status, failure_count, budget_usd, budget_tokens } = spec;
  return { id, name, status, failure_count, budget_usd, budget_tokens };
}

async function budgetLine(ctx: ClientContext, loop: Loop, run: LoopRun | undefined): Promise<BudgetLine | null> {
  if (!hasBudget(loop.settings)) return null;
  const { budget_usd, budget_tokens } = loop.settings;
  const spent = run ? await spendingOf(ctx.db, { loopId: loop.id, since: run.started_at }) : { tokens: 0, cost_usd: 0, unpriced_runs: 0 };
  return { budget_usd, budget_tokens, spent };
}
