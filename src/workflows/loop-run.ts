// The loop-run workflow: drains a loop's specs, walking the graph for each. Deterministic: every
// decision comes from graph/ functions; every effect is an activity.
import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  condition,
  continueAsNew,
  isCancellation,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  ClaimedSpec,
  EnsembleRuntime,
  HookFacts,
  LoopActivities,
  QuorumMet,
  RunContext,
  RunNodeInput,
  SpecStart,
  SpecTopology,
} from '../contract';
import type { HookEvent } from '../domain/hooks';
import { enterLoopback, roundOf, type Rounds } from '../graph/rounds';
import { isInfraFailure } from '../graph/infra-failures';
import { entryVertex, errorSteps, nextSteps, type Step } from '../graph/topology';
import { mapWithConcurrency, runGracedMembers } from './ensemble-members';
import { withInfraRetries } from './infra-retries';
import { PATCHES } from './patches';
import { currentDetails, graceSummary, memberSummary, nodeSummary, quorumSummary } from './story';
import {
  blockSignal,
  continueSignal,
  hostTaskQueue,
  LOOP_STATUS_ATTRIBUTE,
  pauseSignal,
  stateQuery,
  type ContinueStrategy,
  type LiveState,
  type LoopRunInput,
  type LoopRunResult,
  NODE_MAX_ATTEMPTS,
  type NodeOutcome,
  type ResumePoint,
} from '../contract';

type FailedSpec = { status: 'failed'; vertex: string; outcome: Pick<NodeOutcome, 'failureKind' | 'reason'>; resume: ResumePoint | null };
type SpecResult = { status: 'completed' } | { status: 'skipped' } | FailedSpec;

export async function loopRunWorkflow(input: LoopRunInput): Promise<LoopRunResult> {
  const { loopId, engine } = input;
  const queueId = input.queueId ?? null;
  // Every retry is bounded: a store that stays unreachable fails the run instead of hanging it.
  const bookkeepingOptions = {
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
  };
  // Claiming a loop run or a spec must happen once, so those stay regular activities, whose
  // completion the server records; the rest reads, or writes what a second try writes again, and
  // runs as local activities without the server's round trips.
  // Every call names what it does (`summary`), so the Temporal UI's timeline tells the story.
  const claims = (summary: string) => proxyActivities<LoopActivities>({ ...bookkeepingOptions, summary });
  const localBookkeeping = patched(PATCHES.localBookkeeping);
  const bookkeeping = (summary: string) =>
    localBookkeeping ? proxyLocalActivities<LoopActivities>({ ...bookkeepingOptions, summary }) : claims(summary);
  // Node timeouts are enforced inside the activity (it kills the process group); the heartbeat
  // timeout is what notices a dead worker, and a retry then resumes the same node run.
  const executionOptions = {
    startToCloseTimeout: '25 hours',
    heartbeatTimeout: `${engine.heartbeatTimeoutSeconds} seconds`,
    retry: {
      initialInterval: '500 milliseconds',
      backoffCoefficient: 2,
      maximumInterval: '10 seconds',
      maximumAttempts: NODE_MAX_ATTEMPTS,
    },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  };
  const evaluation = (summary: string) =>
    proxyLocalActivities<LoopActivities>({
      startToCloseTimeout: '1 minute',
      retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: NODE_MAX_ATTEMPTS },
      summary,
    });
  const statusAttribute = patched(PATCHES.statusSearchAttribute);
  const hostQueues = patched(PATCHES.hostQueues);
  const quorumGrace = patched(PATCHES.quorumGrace);
  const attemptLimit = patched(PATCHES.specAttemptLimit);
  const infraErrorEdge = patched(PATCHES.infraErrorEdge);
  const dirtyTreeGuard = patched(PATCHES.dirtyTreeGuard);
  const eventHooks = patched(PATCHES.eventHooks);

  const state: LiveState = {
    status: 'running',
    specId: null,
    specName: null,
    vertex: null,
    rounds: {},
    vertexStates: {},
    memberStates: {},
    blockedReason: null,
  };
  let pauseRequested = false;
  let continueWith: ContinueStrategy | null = null;
  setHandler(pauseSignal, () => {
    pauseRequested = true;
  });
  setHandler(continueSignal, ({ strategy }) => {
    continueWith = strategy;
  });
  setHandler(blockSignal, ({ reason }) => {
    state.blockedReason = reason;
  });
  setHandler(stateQuery, () => state);

  /** Says where the run is now in the Temporal UI, and keeps the list's status filter true. */
  function tell(statusChanged = false): void {
    setCurrentDetails(currentDetails(state));
    if (statusChanged && statusAttribute) upsertSearchAttributes([{ key: LOOP_STATUS_ATTRIBUTE, value: state.status }]);
  }

  const workflowId = workflowInfo().workflowId;
  const begun = await claims('begin the loop run').beginLoopRun({
    loopId,
    queueId,
    workflowId,
    loopRunId: input.loopRunId ?? null,
  });
  const { loopRunId, host } = begun;
  // What touches the workdir runs on its host's queue; a loop with no host, or a run recorded
  // before host queues, leaves it on the workflow's own queue, where any worker takes it.
  const hostQueue = hostQueues && host ? hostTaskQueue(workflowInfo().taskQueue, host) : undefined;
  const onHost = hostQueue ? { taskQueue: hostQueue } : {};
  const execution = (summary: string) => proxyActivities<LoopActivities>({ ...executionOptions, ...onHost, summary });
  // A local activity runs on the worker that runs the workflow task, which may be on any host.
  const headReading = (summary: string) =>
    hostQueue ? proxyActivities<LoopActivities>({ ...bookkeepingOptions, ...onHost, summary }) : bookkeeping(summary);
  const completedSpecIds = [...(input.completedSpecIds ?? [])];
  let resume = input.resume ?? null;
  let blocks = input.blocks ?? 0;

  // A sandboxed run works in its own worktree, made where the workdir is; a sandbox that cannot be
  // made fails the run with the reason before any spec is claimed.
  const sandbox =
    input.sandbox && patched(PATCHES.sandboxedRuns)
      ? await proxyActivities<LoopActivities>({ ...bookkeepingOptions, ...onHost, summary: 'open the sandbox' })
          .openSandbox({ loopId, loopRunId, workdir: begun.workdir, sandboxId: input.sandboxId ?? null })
          .catch((error: unknown) => unrunnable(error, '(sandbox)'))
      : null;
  const opened = sandbox && !('status' in sandbox) ? sandbox : null;
  const workdir = opened?.workdir ?? begun.workdir;
  /** What tells the activities to work in the sandbox rather than the loop's workdir. */
  const sandboxWorkdir = opened ? { workdir: opened.workdir } : {};
  if (sandbox && 'status' in sandbox) return failRun(sandbox, null);

  /** Ends the run as failed with the reason (at `spec`, or before any was claimed), then runs its on_failed hooks. */
  async function failRun(result: FailedSpec, spec: ClaimedSpec | null): Promise<LoopRunResult> {
    const failure = {
      failingNode: result.vertex,
      failureKind: result.outcome.failureKind,
      reason: result.outcome.reason,
    };
    const ended = await bookkeeping('the loop run failed').finishLoopRun({
      loopId,
      loopRunId,
      status: 'failed',
      ...failure,
      resume: result.resume && JSON.stringify(result.resume),
    });
    state.status = 'failed';
    tell(true);
    if (eventHooks && ended.hasHooks) {
      const { failingNode: node, failureKind, reason } = failure;
      await fireHooks('on_failed', 'run', { node, failureKind, reason, specId: spec?.specId ?? null, specName: spec?.specName ?? null });
    }
    return { status: 'failed', ...failure, completedSpecIds };
  }

  /** Runs the loop's hooks for one event; hooks that could not run at all are logged, never the run's failure. */
  async function fireHooks(event: HookEvent, occurrence: string, facts: HookFacts): Promise<void> {
    try {
      await execution(`${event} hooks`).runHooks({ loopId, loopRunId, event, occurrence, completedSpecIds, facts, ...sandboxWorkdir });
    } catch (error) {
      if (isCancellation(error) || !(error instanceof ActivityFailure)) throw error;
      log.warn(`The ${event} hooks of loop ${loopId} could not run: ${error.cause?.message ?? error.message}`);
    }
  }

  /** Between nodes (at `node`, or at a spec's claim): honour a pause or a blocker, and say how to go on when one was lifted. */
  async function checkpoint(node: string | null): Promise<ContinueStrategy | null> {
    const blocked = state.blockedReason !== null;
    if (!blocked && !pauseRequested) return null;
    state.status = blocked ? 'blocked' : 'paused';
    tell(true);
    continueWith = null;
    const entered = await bookkeeping(`loop ${state.status}`).setLoopStatus({ loopId, status: state.status });
    if (eventHooks && blocked) {
      blocks++;
      if (entered.hasHooks) {
        const facts = { blocker: state.blockedReason ?? '', node: node ?? '', specId: state.specId, specName: state.specName };
        await fireHooks('on_blocked', String(blocks), facts);
      }
    }
    await condition(() => continueWith !== null);
    const strategy: ContinueStrategy = continueWith ?? 'retry';
    pauseRequested = false;
    state.blockedReason = null;
    state.status = 'running';
    tell(true);
    await bookkeeping('loop running again').setLoopStatus({ loopId, status: 'running' });
    return blocked ? strategy : null;
  }

  /** The tree a fresh spec starts on; null when a person skipped the spec while a failed run's leftovers held it. */
  async function startingTree(specId: string): Promise<SpecStart | null> {
    for (;;) {
      const start = await headReading('the workdir at the start of the spec').inspectSpecStart({ loopId, loopRunId, specId, workdir });
      if (!start.refusal) return start;
      state.blockedReason = start.refusal;
      if ((await checkpoint(null)) === 'skip') return null;
    }
  }

  async function runSpec(specId: string, from: ResumePoint | null): Promise<SpecResult> {
    const start = !from && dirtyTreeGuard ? await startingTree(specId) : undefined;
    if (start === null) return { status: 'skipped' };
    const specStartDirty = from ? from.specStartDirty : start?.dirtyPaths;
    const spec: SpecTopology = await bookkeeping('read the graph').loadTopology({ loopId });
    const { topology, ensembles, commitRightsEnforced } = spec;
    const context: RunContext = {
      loopId,
      loopRunId,
      workflowId,
      specId,
      specStartHead: from?.specStartHead ?? start?.head ?? (await headReading('HEAD at the start of the spec').readHead({ workdir })),
      specCommittedHead: from?.specCommittedHead ?? '',
      ...(specStartDirty && { specStartDirty }),
      ...sandboxWorkdir,
    };
    let rounds: Rounds = from?.rounds ?? {};
    let previousRunId = from?.previousRunId ?? null;
    let skipNext = from?.strategy === 'skip';
    const visits = new Map<string, number>();
    state.rounds = rounds;
    state.vertexStates = Object.fromEntries(topology.vertices.map((v) => [v.name, 'pending' as const]));

    let vertex = from?.vertex ?? entryVertex(topology);
    if (!vertex) {
      return failSpec('(graph)', { failureKind: null, reason: 'The loop has no nodes to run; add nodes with loop_add_node.' });
    }

    function failSpec(at: string, outcome: Pick<NodeOutcome, 'failureKind' | 'reason'>, resumeRounds = rounds): SpecResult {
      return {
        status: 'failed',
        vertex: at,
        outcome,
        resume: { specId, vertex: at, rounds: resumeRounds, strategy: 'retry', ...heads(), previousRunId },
      };
    }
    function heads() {
      const { specStartHead, specCommittedHead, specStartDirty } = context;
      return { specStartHead, specCommittedHead, ...(specStartDirty && { specStartDirty }) };
    }

    async function execute(name: string, round: number): Promise<NodeOutcome> {
      const visit = (visits.get(name) ?? 0) + 1;
      visits.set(name, visit);
      const runKey = `${workflowInfo().runId}:${specId}:${name}:${visit}`;
      const kind = topology.vertices.find((v) => v.name === name)?.kind;
      const base = { ...context, round, runKey, previousRunId, stragglerMinutes: null };
      const summary = nodeSummary(name, state.specName, round);
      tell();
      if (kind === 'gate' || kind === 'router') {
        return evaluation(summary).evaluateNode({ ...base, nodeName: name, judgeCommitRights: false });
      }
      if (kind !== 'ensemble') return executeProcess(name, base, summary);

      return executeEnsemble(name, ensembles[name], base);
    }

    /** An agent or check; one that failed for infrastructure reasons runs again, each attempt under its own run key. */
    function executeProcess(name: string, base: Omit<RunNodeInput, 'nodeName' | 'judgeCommitRights'>, summary: string) {
      const runNode = (runKey: string, what: string) =>
        execution(what).runNode({ ...base, runKey, nodeName: name, judgeCommitRights: commitRightsEnforced });
      if (!infraErrorEdge) return runNode(base.runKey, summary);
      return withInfraRetries(spec.infraRetries ?? 0, (attempt) =>
        attempt === 1 ? runNode(base.runKey, summary) : runNode(`${base.runKey}:infra-${attempt}`, `${summary}, infra attempt ${attempt}`),
      );
    }

    /** Runs the members (with the quorum grace when the ensemble has one), then joins them in its quorum. */
    async function executeEnsemble(name: string, ensemble: EnsembleRuntime, base: Omit<RunNodeInput, 'nodeName' | 'judgeCommitRights'>) {
      const headBefore = commitRightsEnforced ? await headReading(`HEAD before ${name}`).readHead({ workdir }) : '';
      state.memberStates = Object.fromEntries(ensemble.members.map((m) => [m, 'pending' as const]));
      const memberKey = (index: number) => `${base.runKey}:${index}`;
      const runMember = async (member: string, index: number) => {
        state.memberStates[member] = 'running';
        tell();
        const result = await execution(memberSummary(member, ensemble.memberLabels?.[index])).runNode({
          ...base,
          nodeName: member,
          runKey: memberKey(index),
          judgeCommitRights: false,
          stragglerMinutes: ensemble.stragglerMinutes,
        });
        state.memberStates[member] = result.outcome === 'pass' ? 'pass' : 'fail';
        tell();
        return result;
      };
      const graceMinutes = quorumGrace ? (ensemble.graceMinutes ?? null) : null;
      const { memberRunIds, passed, quorumMet } = graceMinutes === null ? await everyMember() : await gracedMembers(graceMinutes);
      return execution(quorumSummary(name, passed, memberRunIds.length, ensemble.minPass)).joinQuorum({
        ...context,
        ensembleName: name,
        quorumNode: ensemble.quorumNode,
        memberRunIds,
        minPass: ensemble.minPass,
        round: base.round,
        runKey: base.runKey,
        headBefore,
        judgeCommitRights: commitRightsEnforced,
        ...(quorumMet && { quorumMet }),
      });

      async function everyMember(): Promise<{ memberRunIds: string[]; passed: number; quorumMet?: QuorumMet }> {
        const members = await mapWithConcurrency(ensemble.members, engine.ensembleConcurrency, runMember);
        return { memberRunIds: members.map((m) => m.nodeRunId), passed: members.filter((m) => m.outcome === 'pass').length };
      }

      /** The members cut short end on record as quorum_met, so the quorum reads a run for every member. */
      async function gracedMembers(graceMinutes: number) {
        const { outcomes, quorumMetAt } = await runGracedMembers({
          members: ensemble.members,
          concurrency: engine.ensembleConcurrency,
          minPass: ensemble.minPass,
          graceMinutes,
          run: runMember,
          graceSummary: graceSummary(name, graceMinutes),
        });
        const cut = ensemble.members.flatMap((member, index) => (outcomes[index] ? [] : [{ nodeName: member, runKey: memberKey(index) }]));
        const cutRunIds =
          cut.length && quorumMetAt
            ? await bookkeeping(`members of ${name} cut short`).recordCutMembers({
                ...context,
                round: base.round,
                minPass: ensemble.minPass,
                quorumMetAt,
                graceMinutes,
                members: cut,
              })
            : [];
        for (const { nodeName } of cut) state.memberStates[nodeName] = 'fail';
        let nextCut = 0;
        return {
          memberRunIds: outcomes.map((outcome) => outcome?.nodeRunId ?? cutRunIds[nextCut++]),
          passed: outcomes.filter((outcome) => outcome?.outcome === 'pass').length,
          quorumMet: quorumMetAt ? { at: quorumMetAt, graceMinutes } : undefined,
        };
      }
    }

    for (;;) {
      const round = roundOf(topology, rounds, vertex);
      state.vertex = vertex;
      state.vertexStates[vertex] = 'running';
      let outcome: NodeOutcome;
      if (skipNext) {
        skipNext = false;
        outcome = skipped(previousRunId);
      } else {
        outcome = await execute(vertex, round);
        state.vertexStates[vertex] = outcome.outcome === 'fail' ? 'fail' : 'pass';
        const lifted = await checkpoint(vertex);
        if (lifted === 'retry') continue;
        if (lifted === 'skip') outcome = skipped(outcome.nodeRunId);
      }
      state.vertexStates[vertex] = outcome.outcome === 'fail' ? 'fail' : 'pass';
      if (outcome.committedHead) context.specCommittedHead = outcome.committedHead;
      previousRunId = outcome.nodeRunId;

      const infraFailed = infraErrorEdge && isInfraFailure(outcome.failureKind);
      const [step]: Step[] = infraFailed ? errorSteps(topology, vertex) : nextSteps(topology, vertex, outcome.outcome);
      if (!step) return outcome.outcome === 'fail' ? failSpec(vertex, outcome) : { status: 'completed' };
      if (step.type === 'loopback') {
        const entered = enterLoopback(topology, rounds, step.target);
        if (entered.kind === 'exhausted') {
          const freshBudget = { ...rounds };
          delete freshBudget[entered.head];
          return failSpec(entered.head, { failureKind: 'iteration_limit', reason: entered.reason }, freshBudget);
        }
        rounds = entered.rounds;
        state.rounds = rounds;
        for (const stale of entered.stale) state.vertexStates[stale] = 'stale';
        // A long fix loop outgrows its history inside one spec: start the new round in a fresh run
        // that resumes the spec here (the topology is read again there, as on any resume).
        if (workflowInfo().continueAsNewSuggested && patched(PATCHES.roundContinueAsNew)) {
          const here: ResumePoint = { specId, vertex: step.target, rounds, strategy: 'retry', ...heads(), previousRunId };
          await continueAsNew<typeof loopRunWorkflow>({ ...input, resume: here, loopRunId, completedSpecIds, blocks });
        }
      }
      vertex = step.target;
    }
  }

  // A run continues as new only once it has finished a spec: a fresh run whose first events
  // already pass the server's threshold would otherwise hand on to the next forever.
  let finishedASpec = false;
  /** A spec a person skipped while it held the loop blocked is marked so; the run goes on to the next. */
  async function skipSpec(spec: ClaimedSpec): Promise<void> {
    await bookkeeping(`spec "${spec.specName}" skipped`).finishSpec({ loopId, specId: spec.specId, status: 'skipped' });
    resume = null;
    finishedASpec = true;
  }
  for (;;) {
    if (workflowInfo().continueAsNewSuggested && finishedASpec) {
      await continueAsNew<typeof loopRunWorkflow>({ ...input, resume, loopRunId, completedSpecIds, blocks });
    }
    const spec = await claims('claim the next spec').claimNextSpec({
      loopId,
      queueId,
      resumeSpecId: resume?.specId ?? null,
      ...(attemptLimit && { enforceAttemptLimit: true }),
    });
    if (!spec) break;
    state.specId = spec.specId;
    state.specName = spec.specName;
    tell();
    if (spec.attemptsExhausted) {
      // Blocked until a continue, which claims again: a reset spec then runs, a skip passes it by.
      state.blockedReason = spec.attemptsExhausted;
      if ((await checkpoint(null)) === 'skip') await skipSpec(spec);
      continue;
    }
    if (spec.startsOver) resume = null;
    const result = await runSpec(spec.specId, resume).catch((error: unknown) => unrunnable(error, state.vertex ?? '(graph)'));
    resume = null;
    if (result.status === 'skipped') {
      await skipSpec(spec);
      continue;
    }
    if (result.status === 'failed') {
      await bookkeeping(`spec "${spec.specName}" failed`).finishSpec({ loopId, specId: spec.specId, status: 'failed' });
      return failRun(result, spec);
    }
    const specDone = await bookkeeping(`spec "${spec.specName}" completed`).finishSpec({
      loopId,
      specId: spec.specId,
      status: 'completed',
    });
    completedSpecIds.push(spec.specId);
    finishedASpec = true;
    if (eventHooks && specDone.hasHooks) {
      // A spec reset while the run is blocked may complete again in it: each completion is its own occurrence.
      const completion = completedSpecIds.filter((id) => id === spec.specId).length;
      await fireHooks('on_spec_completed', `${spec.specId}.${completion}`, { specId: spec.specId, specName: spec.specName });
    }
  }

  const finished = await bookkeeping('the loop run completed').finishLoopRun({
    loopId,
    loopRunId,
    status: 'completed',
    failingNode: null,
    failureKind: null,
    reason: null,
    resume: null,
  });
  state.status = 'completed';
  tell(true);
  if (eventHooks) {
    if (finished.hasHooks) await fireHooks('on_completed', 'run', {});
  } else if (!localBookkeeping || finished.hasCompletionHook) {
    await execution('on_completed hook').runCompletionHook({ loopId, loopRunId, completedSpecIds, ...sandboxWorkdir });
  }
  return { status: 'completed', failingNode: null, failureKind: null, reason: null, completedSpecIds };
}

/**
 * An activity that failed for good (its node or spec was deleted mid-run, its workdir is a file,
 * its retries ran out) ends the loop run as failed with the reason, leaving no resume point;
 * anything else is a bug and fails the task.
 */
function unrunnable(error: unknown, vertex: string): FailedSpec {
  const fromLocalActivity = error instanceof ApplicationFailure && patched(PATCHES.localFailuresFailTheRun);
  if (!(error instanceof ActivityFailure) && !fromLocalActivity) throw error;
  const reason = error instanceof ActivityFailure ? (error.cause?.message ?? error.message) : error.message;
  return { status: 'failed', vertex, outcome: { failureKind: null, reason }, resume: null };
}

function skipped(nodeRunId: string | null): NodeOutcome {
  return {
    nodeRunId: nodeRunId ?? '',
    outcome: 'pass',
    failureKind: null,
    reason: 'skipped by loop_continue',
    excerpt: '',
    committedHead: null,
  };
}
