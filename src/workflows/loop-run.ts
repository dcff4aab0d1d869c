// The loop-run workflow: one run of a loop, draining its specs in order (or its queue's). This level
// owns the run's messages (pause, continue, block, the state query), claiming each spec, handing on
// to a fresh run between specs (continue-as-new), and the run's end with its hooks; spec-run.ts
// walks one spec's graph. Deterministic: every decision comes from graph/, every effect is an activity.
import { ActivityFailure, ApplicationFailure, condition, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  blockSignal,
  continueSignal,
  decideUpdate,
  feedbackUpdate,
  hostTaskQueue,
  memberTaskQueue,
  pauseSignal,
  stateQuery,
  type ApprovalDecision,
  type ClaimedSpec,
  type FeedbackRequest,
  type FinishedSpec,
  type LiveState,
  type OpenedSpec,
  type LoopRunInput,
  type LoopRunResult,
  type ResumePoint,
} from '../contract';
import { bookkeeping, claims, loopRunActivities } from './activity-options';
import { refuseDecision } from './approval-wait';
import { checkpoint } from './checkpoint';
import { queueFeedback, refuseFeedback } from './feedback';
import { fireHooks } from './hooks';
import { PATCHES } from './patches';
import { continueRunAsNew, initialLiveState, type LoopRun, type Requests } from './run-state';
import { runSpec, type FailedSpec } from './spec-run';
import { tell } from './story';

export async function loopRunWorkflow(input: LoopRunInput): Promise<LoopRunResult> {
  const live = initialLiveState();
  const requests: Requests = { pause: false, continueWith: null, decision: null, feedback: [...(input.feedback ?? [])] };
  live.queuedFeedback = requests.feedback.length;
  setHandler(pauseSignal, () => {
    requests.pause = true;
  });
  setHandler(continueSignal, ({ strategy }) => {
    requests.continueWith = strategy;
  });
  setHandler(blockSignal, ({ reason }) => {
    live.blockedReason = reason;
  });
  setHandler(stateQuery, () => live);
  setHandler(
    decideUpdate,
    // It answers once the walk has taken the decision, so the update completes after the commands that
    // take it, whatever wraps the handler (the traced bundle's interceptors add steps of their own).
    async (decision) => {
      requests.decision = { ...decision, at: new Date().toISOString() };
      await condition(() => requests.decision === null);
      return decision;
    },
    { validator: (decision: ApprovalDecision) => refuseDecision(live.approval, requests.decision, decision) },
  );
  setHandler(feedbackUpdate, (feedback) => queueFeedback(live, requests, feedback), {
    validator: (feedback: FeedbackRequest) => refuseFeedback(live, feedback),
  });

  const { run, sandboxFailure } = await beginRun(input, live, requests);
  if (sandboxFailure) return failRun(run, sandboxFailure, null);
  return drainSpecs(run, input.resume ?? null);
}

/** Claims the loop run and, for a sandboxed run, opens its worktree where the workdir is; a sandbox that cannot be made fails the run. */
async function beginRun(
  input: LoopRunInput,
  live: LiveState,
  requests: Requests,
): Promise<{ run: LoopRun; sandboxFailure: FailedSpec | null }> {
  const { loopId, engine } = input;
  const { workflowId, taskQueue } = workflowInfo();
  const shared = input.sharedTaskQueue && patched(PATCHES.hostWorkflows) ? input.sharedTaskQueue : taskQueue;
  const begin = { loopId, queueId: input.queueId ?? null, workflowId, loopRunId: input.loopRunId ?? null };
  // A run whose record the request made begins it again the same way: with the patch, in a local activity.
  const begun =
    input.loopRunId && patched(PATCHES.specOpenings)
      ? await bookkeeping('begin the loop run').beginLoopRun(begin)
      : await claims('begin the loop run').beginLoopRun(begin);
  const { loopRunId } = begun;
  // What touches the workdir runs on its host's queue (the workflow's own, when the run was started there);
  // a loop with no host leaves it on the workflow's own queue.
  const activities = loopRunActivities(engine, {
    host: begun.host ? hostTaskQueue(shared, begun.host) : undefined,
    members: memberTaskQueue(shared, begun.host ?? null),
  });
  const opened = input.sandbox
    ? await activities
        .onHost('open the sandbox')
        .openSandbox({ loopId, loopRunId, workdir: begun.workdir, sandboxId: input.sandboxId ?? null })
        .catch((error: unknown) => unrunnable(error, '(sandbox)'))
    : null;
  const sandbox = opened && !('status' in opened) ? opened : null;
  const run: LoopRun = {
    input,
    loopId,
    loopRunId,
    workflowId,
    engine,
    activities,
    workdir: sandbox?.workdir ?? begun.workdir,
    sandboxWorkdir: sandbox ? { workdir: sandbox.workdir } : {},
    live,
    requests,
    completedSpecIds: [...(input.completedSpecIds ?? [])],
    blocks: input.blocks ?? 0,
  };
  return { run, sandboxFailure: opened && 'status' in opened ? opened : null };
}

/** Claims and runs the specs one by one until none is left (the run completed) or one fails (the run failed). */
async function drainSpecs(run: LoopRun, resumeFrom: ResumePoint | null): Promise<LoopRunResult> {
  let resume = resumeFrom;
  // A run continues as new only once it has finished a spec: a fresh run whose first events
  // already pass the server's threshold would otherwise hand on to the next forever.
  let finishedASpec = false;
  for (;;) {
    if (workflowInfo().continueAsNewSuggested && finishedASpec) await continueRunAsNew(run, resume);
    const spec = await claimNextSpec(run, resume);
    if (!spec) return completeRun(run);
    if ('status' in spec) return failRun(run, spec, null);
    const ended = await takeSpec(run, spec, resume);
    if (ended === 'claim again') continue;
    if (ended === 'none left') return completeRun(run);
    if (ended !== 'done') return failRun(run, ended, spec);
    resume = null;
    finishedASpec = true;
  }
}

/**
 * The next spec, claimed; null when none is left. With the patch, the same trip reads the tree it
 * starts on and its graph, so a workdir that cannot be read fails the run here, with no spec claimed.
 */
function claimNextSpec(run: LoopRun, resume: ResumePoint | null): Promise<OpenedSpec | FailedSpec | null> {
  const claim = { loopId: run.loopId, queueId: run.input.queueId ?? null, resumeSpecId: resume?.specId ?? null };
  if (!patched(PATCHES.specOpenings)) return run.activities.claims('claim the next spec').claimNextSpec(claim);
  const { loopRunId, workdir } = run;
  return run.activities
    .onHost('open the next spec')
    .openNextSpec({ ...claim, loopRunId, workdir })
    .catch((error: unknown) => unrunnable(error, '(spec start)'));
}

/**
 * Runs one claimed spec to its end: done (completed or skipped; 'none left' when its finish found no
 * spec to claim next), to be claimed again (a blocker lifted with retry), or failed.
 */
async function takeSpec(
  run: LoopRun,
  spec: OpenedSpec,
  resume: ResumePoint | null,
): Promise<'done' | 'none left' | 'claim again' | FailedSpec> {
  const { live } = run;
  live.specId = spec.specId;
  live.specName = spec.specName;
  tell(live);
  if (spec.attemptsExhausted) {
    // Blocked until a continue, which claims again: a reset spec then runs, a skip passes it by.
    live.blockedReason = spec.attemptsExhausted;
    if ((await checkpoint(run, null)) !== 'skip') return 'claim again';
    return doneWith(await finishSpec(run, spec, 'skipped'));
  }
  const result = await runSpec(run, spec, spec.startsOver ? null : resume).catch((error: unknown) =>
    unrunnable(error, live.vertex ?? '(graph)'),
  );
  const finished = await finishSpec(run, spec, result.status);
  if (result.status === 'failed') return result;
  if (result.status === 'completed') {
    run.completedSpecIds.push(spec.specId);
    // A spec reset while the run is blocked may complete again in it: each completion is its own occurrence.
    const completion = run.completedSpecIds.filter((id) => id === spec.specId).length;
    const { specId, specName } = spec;
    if (finished.hasHooks) await fireHooks(run, 'on_spec_completed', `${specId}.${completion}`, { specId, specName });
  }
  return doneWith(finished);
}

/** A hook may have added specs since the finish looked, so only a finish with no hooks to run spares the run its claim. */
function doneWith(finished: FinishedSpec): 'done' | 'none left' {
  return finished.specsLeft === false && !finished.hasHooks ? 'none left' : 'done';
}

/** Records the spec's end; with the patch, a spec that did not fail also asks whether one is left to claim. */
function finishSpec(run: LoopRun, spec: ClaimedSpec, status: 'completed' | 'failed' | 'skipped'): Promise<FinishedSpec> {
  const asked = status !== 'failed' && patched(PATCHES.specOpenings) && { nextFrom: { queueId: run.input.queueId ?? null } };
  return run.activities
    .bookkeeping(`spec "${spec.specName}" ${status}`)
    .finishSpec({ loopId: run.loopId, specId: spec.specId, status, ...asked });
}

async function completeRun(run: LoopRun): Promise<LoopRunResult> {
  const { loopId, loopRunId, completedSpecIds } = run;
  const end = { failingNode: null, failureKind: null, reason: null };
  const finished = await run.activities
    .bookkeeping('the loop run completed')
    .finishLoopRun({ loopId, loopRunId, status: 'completed', ...end, resume: null });
  run.live.status = 'completed';
  tell(run.live, true);
  if (finished.hasHooks) await fireHooks(run, 'on_completed', 'run', {});
  return { status: 'completed', ...end, completedSpecIds };
}

/** Ends the run as failed with the reason (at `spec`, or before any was claimed), then runs its on_failed hooks. */
async function failRun(run: LoopRun, result: FailedSpec, spec: ClaimedSpec | null): Promise<LoopRunResult> {
  const { loopId, loopRunId, completedSpecIds } = run;
  const failure = { failingNode: result.vertex, failureKind: result.outcome.failureKind, reason: result.outcome.reason };
  const ended = await run.activities
    .bookkeeping('the loop run failed')
    .finishLoopRun({ loopId, loopRunId, status: 'failed', ...failure, resume: result.resume });
  run.live.status = 'failed';
  tell(run.live, true);
  if (ended.hasHooks) {
    const { failingNode: node, failureKind, reason } = failure;
    await fireHooks(run, 'on_failed', 'run', { node, failureKind, reason, specId: spec?.specId ?? null, specName: spec?.specName ?? null });
  }
  return { status: 'failed', ...failure, completedSpecIds };
}

/**
 * An activity that failed for good (its node or spec was deleted mid-run, its workdir is a file,
 * its retries ran out) ends the loop run as failed with the reason, leaving no resume point; a local
 * activity's reaches the workflow as an ApplicationFailure. Anything else is a bug and fails the task.
 */
function unrunnable(error: unknown, vertex: string): FailedSpec {
  if (!(error instanceof ActivityFailure) && !(error instanceof ApplicationFailure)) throw error;
  const reason = error instanceof ActivityFailure ? (error.cause?.message ?? error.message) : error.message;
  return { status: 'failed', vertex, outcome: { failureKind: null, reason }, resume: null };
}
