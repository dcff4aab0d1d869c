// Bookkeeping activities: loop and spec status, loop-run records, and the topology a spec run walks.
import { ApplicationFailure } from '@temporalio/activity';
import { DEFAULT_INFRA_RETRIES, DEFAULT_MAX_ITERATIONS, DEFAULT_SPEC_ATTEMPT_LIMIT } from '../domain/loop';
import type { HookEvent } from '../domain/hooks';
import type { Loop } from '../domain/loop';
import { quorumMinPass } from '../domain/ensemble';
import { serializeResumePoint } from '../store/resume-points';
import { BUDGET_EXHAUSTED, budgetExhausted, hasBudget, runLimit, specLimit } from '../graph/budget';
import { memberLabel } from '../graph/ensemble-names';
import { NO_PROGRESS } from '../graph/stalls';
import { designFromStored } from '../graph/stored-graph';
import { buildTopology } from '../graph/topology';
import { getGraph } from '../store/graph-repository';
import { getLoopRun, insertLoopRun, updateLoopRun } from '../store/loop-runs-repository';
import { getLoop, setLoopStatus } from '../store/loops-repository';
import { endRunningNodeRuns, spendingOf } from '../store/node-runs-repository';
import { getQueue } from '../store/queues-repository';
import { getSpec, nextPendingSpec, recordSpecFailure, updateSpec } from '../store/specs-repository';
import type {
  CheckBudgetInput,
  BeginLoopRunInput,
  BegunLoopRun,
  ClaimedSpec,
  ClaimNextSpecInput,
  EnsembleRuntime,
  FinishLoopRunInput,
  FinishSpecInput,
  FinishedSpec,
  HookPresence,
  LoopActivities,
  SetLoopStatusInput,
  SpecTopology,
} from '../contract';
import { readHead } from '../git/workdir';
import { notifyHuman } from '../notify/channels/desktop';
import { killProcessGroups } from '../process/process-group';
import type { ActivityDeps } from './deps';
import { announce } from './notifications';

type Database = ActivityDeps['db'];

type Bookkeeping = Pick<
  LoopActivities,
  'beginLoopRun' | 'claimNextSpec' | 'loadTopology' | 'readHead' | 'checkBudget' | 'finishSpec' | 'setLoopStatus' | 'finishLoopRun'
>;

export function bookkeepingActivities(deps: ActivityDeps): Bookkeeping {
  const { db } = deps;
  const requireLoop = (loopId: string) => existingLoop(db, loopId);

  return {
    async beginLoopRun(input: BeginLoopRunInput): Promise<BegunLoopRun> {
      const loop = await requireLoop(input.loopId);
      // Together, so the loop shows an open run only while its last run's record is open.
      const loopRunId = await db.transaction().execute(async (tx) => {
        const id =
          input.loopRunId ?? (await insertLoopRun(tx, { loop_id: loop.id, workflow_id: input.workflowId, queue_id: input.queueId })).id;
        await setLoopStatus(tx, loop.id, 'running');
        return id;
      });
      return { loopRunId, workdir: loop.workdir, host: loop.host };
    },

    async claimNextSpec(input: ClaimNextSpecInput): Promise<ClaimedSpec | null> {
      const next = await nextClaim(db, input);
      if (next?.taken) await markClaimed(db, next.claimed);
      return next?.claimed ?? null;
    },

    loadTopology: (input) => specTopology(db, input.loopId, input.specId),

    async checkBudget(input: CheckBudgetInput): Promise<string | null> {
      const loop = await requireLoop(input.loopId);
      const run = await getLoopRun(db, input.loopRunId);
      if (!run) throw ApplicationFailure.nonRetryable(`Loop run ${input.loopRunId} no longer exists.`, 'missing');
      const limits = [runLimit(loop.settings, await spendingOf(db, { loopId: loop.id, since: run.started_at }))];
      const spec = input.specId ? await getSpec(db, input.specId) : undefined;
      if (spec && hasBudget(spec)) limits.push(specLimit(spec, await spendingOf(db, { specId: spec.id })));
      const exhausted = budgetExhausted(limits, input.node);
      if (exhausted !== null) {
        const where = { spec: spec ? { id: spec.id, name: spec.name } : null, node: input.node, workflowId: run.workflow_id };
        const command = `canopy loop continue ${loop.id}, once the budget is raised`;
        await announce(deps, { event: 'budget_exhausted', loop, ...where, reason: exhausted, command });
      }
      return exhausted;
    },

    async readHead(input) {
      return readHead(input.workdir);
    },

    async finishSpec(input: FinishSpecInput): Promise<FinishedSpec> {
      if (input.status === 'failed') await recordSpecFailure(db, input.specId);
      else await updateSpec(db, input.specId, { status: input.status });
      const hooks = input.status === 'completed' && hasHooks(await getLoop(db, input.loopId), 'on_spec_completed');
      if (!input.nextFrom) return { hasHooks: hooks };
      return { hasHooks: hooks, specsLeft: await specsLeft(db, input.loopId, input.nextFrom.queueId) };
    },

    async setLoopStatus(input: SetLoopStatusInput): Promise<HookPresence> {
      const loop = await setLoopStatus(db, input.loopId, input.status);
      if (loop && input.status === 'blocked') await announceBlocked(deps, loop, input.blocker);
      return { hasHooks: input.status === 'blocked' && hasHooks(loop, 'on_blocked') };
    },

    async finishLoopRun(input: FinishLoopRunInput) {
      await updateLoopRun(db, input.loopRunId, {
        status: input.status,
        failing_node: input.failingNode,
        failure_kind: input.failureKind,
        failure_reason: input.reason,
        resume: storedResumePoint(input.resume),
        ended_at: new Date().toISOString(),
      });
      const loop = await setLoopStatus(db, input.loopId, input.status);
      // A node whose worker died on its last attempt never closed its record, nor killed its group.
      if (input.status === 'failed') {
        const failure = {
          status: 'fail' as const,
          failure_kind: 'infra' as const,
          reason: `Abandoned when the run failed: ${input.reason}`,
        };
        await killProcessGroups(await endRunningNodeRuns(db, input.loopId, failure, deps.hostId));
      }
      if (input.status === 'completed') notifyHuman('Loop completed', loop ? `${loop.name} completed.` : `Loop ${input.loopId} completed.`);
      if (loop) await announceRunEnd(deps, loop, input);
      return { hasHooks: hasHooks(loop, input.status === 'completed' ? 'on_completed' : 'on_failed') };
    },
  };
}

/**
 * A budget's block is told once, as budget_exhausted, by the check that found it; a stalled loop's,
 * as no_progress instead of blocked, so that a receiver hears of each block once, by its kind.
 */
async function announceBlocked(deps: ActivityDeps, loop: Loop, blocker: SetLoopStatusInput['blocker']): Promise<void> {
  if (blocker?.reason.startsWith(`${BUDGET_EXHAUSTED}:`)) return;
  const spec = blocker?.specId && blocker.specName ? { id: blocker.specId, name: blocker.specName } : null;
  const command = `canopy loop continue ${loop.id} [--strategy skip]`;
  const where = { spec, node: blocker?.node || null, workflowId: blocker?.workflowId ?? null };
  const event = blocker?.reason.startsWith(`${NO_PROGRESS}:`) ? NO_PROGRESS : 'blocked';
  await announce(deps, { event, loop, ...where, reason: blocker?.reason || null, command });
}

async function announceRunEnd(deps: ActivityDeps, loop: Loop, end: FinishLoopRunInput): Promise<void> {
  const run = await getLoopRun(deps.db, end.loopRunId);
  const spec = end.resume ? await getSpec(deps.db, end.resume.specId) : undefined;
  const where = { spec: spec ? { id: spec.id, name: spec.name } : null, node: end.failingNode, workflowId: run?.workflow_id ?? null };
  if (end.status === 'completed')
    return announce(deps, { event: 'completed', loop, ...where, reason: null, command: `canopy loop info ${loop.id}` });
  const reason = [end.failureKind, end.reason].filter(Boolean).join(': ') || null;
  await announce(deps, {
    event: 'failed',
    loop,
    ...where,
    reason,
    command: `canopy loop continue ${loop.id} (or canopy loop info ${loop.id})`,
  });
}

async function existingLoop(db: Database, loopId: string): Promise<Loop> {
  const loop = await getLoop(db, loopId);
  if (!loop) throw ApplicationFailure.nonRetryable(`Loop ${loopId} no longer exists.`, 'missing');
  return loop;
}

/**
 * The spec a claim takes next, and whether it is taken (one whose attempts are used up is passed
 * over, saying why); writes nothing, so what fails after it leaves the spec to the next claim.
 */
export async function nextClaim(db: Database, input: ClaimNextSpecInput): Promise<{ claimed: ClaimedSpec; taken: boolean } | null> {
  const spec = await nextSpec(db, input);
  if (!spec) return null;
  const claimed = { specId: spec.id, specName: spec.name };
  const loop = await existingLoop(db, input.loopId);
  const limit = loop.settings.spec_attempt_limit ?? DEFAULT_SPEC_ATTEMPT_LIMIT;
  if (spec.failure_count >= limit)
    return { claimed: { ...claimed, attemptsExhausted: attemptsExhausted(spec, limit, loop.id) }, taken: false };
  return { claimed: input.resumeSpecId && spec.status === 'pending' ? { ...claimed, startsOver: true } : claimed, taken: true };
}

/** The spec a claim looks at: the one to resume, else the first pending one of the queue, or of the loop. */
function nextSpec(db: Database, input: ClaimNextSpecInput) {
  if (input.resumeSpecId) return getSpec(db, input.resumeSpecId);
  return input.queueId ? nextPendingInQueue(db, input.queueId) : nextPendingSpec(db, input.loopId);
}

/** Whether a claim would find a spec; a queue gone since says yes, so that the claim meets it and fails the run saying so. */
async function specsLeft(db: Database, loopId: string, queueId: string | null): Promise<boolean> {
  try {
    return (await nextSpec(db, { loopId, queueId, resumeSpecId: null })) !== undefined;
  } catch (error) {
    if (error instanceof ApplicationFailure) return true;
    throw error;
  }
}

/** Writes the claim nextClaim found: the spec runs. */
export async function markClaimed(db: Database, claimed: ClaimedSpec): Promise<void> {
  await updateSpec(db, claimed.specId, { status: 'running' });
}

async function nextPendingInQueue(db: Database, queueId: string) {
  const queue = await getQueue(db, queueId);
  if (!queue) throw ApplicationFailure.nonRetryable(`Queue ${queueId} no longer exists.`, 'missing');
  for (const specId of queue.spec_ids) {
    const spec = await getSpec(db, specId);
    if (spec?.status === 'pending') return spec;
  }
  return undefined;
}

/** The loop's graph as a spec's walk uses it (`specId` says whether that spec has a budget of its own). */
export async function specTopology(db: Database, loopId: string, specId?: string): Promise<SpecTopology> {
  const loop = await existingLoop(db, loopId);
  const graph = await getGraph(db, loop.id);
  const { settings } = loop;
  const topology = buildTopology(designFromStored(graph), settings.max_iterations ?? DEFAULT_MAX_ITERATIONS, settings.max_stalled_rounds);
  // Built from entries, so an ensemble named `__proto__` is an own key rather than a prototype.
  const ensembles: Record<string, EnsembleRuntime> = Object.fromEntries(
    graph.ensembles.map((ensemble) => {
      const memberNodes = graph.nodes
        .filter((node) => node.ensemble_id === ensemble.id && node.member_index !== null)
        .sort((a, b) => a.member_index! - b.member_index!);
      const members = memberNodes.map((node) => node.name);
      const runtime: EnsembleRuntime = {
        members,
        memberConfigs: memberNodes.map((node) => node.config),
        memberLabels: ensemble.members.map((member) => memberLabel(member)),
        quorumNode: graph.nodes.find((node) => node.id === ensemble.quorum_node_id)!.name,
        minPass: quorumMinPass(ensemble),
        stragglerMinutes: ensemble.straggler_timeout_minutes ?? null,
        graceMinutes: ensemble.quorum_grace_minutes ?? null,
        ...(ensemble.isolation === 'worktree' && { isolated: true }),
        ...(ensemble.kind && ensemble.kind !== 'parallel' && { kind: ensemble.kind }),
      };
      return [ensemble.name, runtime];
    }),
  );
  const commitRightsEnforced = graph.nodes.some((node) => node.config.commit_rights === true);
  const infraRetries = loop.settings.infra_retries ?? DEFAULT_INFRA_RETRIES;
  const spec = specId ? await getSpec(db, specId) : undefined;
  const budgeted = hasBudget(loop.settings) || (spec !== undefined && hasBudget(spec));
  const infraBackoffSeconds = loop.settings.infra_backoff_seconds;
  return { topology, ensembles, commitRightsEnforced, infraRetries, infraBackoffSeconds, budgeted };
}

function hasHooks(loop: Loop | undefined, event: HookEvent): boolean {
  return (loop?.hooks[event]?.length ?? 0) > 0;
}

function attemptsExhausted(spec: { id: string; name: string; failure_count: number }, limit: number, loopId: string): string {
  // The command must survive a shell and the comma-separated list, so an unusual name is given by id.
  const ref = /^[\w.-]+$/.test(spec.name) ? spec.name : spec.id;
  return (
    `spec '${spec.name}' failed ${spec.failure_count} times across runs (spec_attempt_limit ${limit}); fix what fails it, ` +
    `then give it new attempts with \`canopy loop reset ${loopId} --specs ${ref}\` (or raise spec_attempt_limit)`
  );
}

/** A run scheduled by a version that sent its resume point as JSON text hands that text, which is kept as it is. */
function storedResumePoint(resume: FinishLoopRunInput['resume'] | string): string | null {
  if (resume === null || typeof resume === 'string') return resume;
  return serializeResumePoint(resume);
}
