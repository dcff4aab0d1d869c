// Feedback into a running loop: a person's remark is queued in the run (the feedback update) and
// handed, once, to the next agent or ensemble the walk runs, whose prompt carries it.
import { patched } from '@temporalio/workflow';
import { FEEDBACK_LIMIT, type FeedbackRequest, type LiveState } from '../contract';
import type { HumanFeedback } from '../domain/node-run';
import type { VertexKind } from '../graph/topology';
import { PATCHES } from './patches';
import type { LoopRun, Requests } from './run-state';

/** The kinds whose runs are agent runs: an agent, and an ensemble's members. */
const RECEIVERS: ReadonlySet<VertexKind> = new Set<VertexKind>(['agent', 'ensemble']);

export function queueFeedback(live: LiveState, requests: Requests, feedback: FeedbackRequest): { queued: number } {
  requests.feedback.push({ message: feedback.message, by: feedback.by, at: new Date().toISOString() });
  live.queuedFeedback = requests.feedback.length;
  return { queued: requests.feedback.length };
}

/** Why a remark cannot be queued now (thrown, so the update is refused and nothing changes), or nothing. */
export function refuseFeedback(live: LiveState, feedback: FeedbackRequest): void {
  if (live.status === 'completed' || live.status === 'failed')
    throw new Error(`The run is ending (${live.status}); no agent runs after this, so the remark was not queued.`);
  if (typeof feedback?.message !== 'string' || feedback.message.trim() === '') throw new Error('message: must not be empty.');
  if (feedback.message.length > FEEDBACK_LIMIT) throw new Error(`message: must be at most ${FEEDBACK_LIMIT} characters.`);
  if (typeof feedback.by !== 'string' || feedback.by.trim() === '') throw new Error('by: must name who sends it.');
}

/** The queued remarks for a vertex of this kind, taken from the queue; nothing for a kind that runs no agent. */
export function takeFeedback(run: LoopRun, kind: VertexKind): { humanFeedback?: HumanFeedback[] } {
  const { requests, live } = run;
  if (!RECEIVERS.has(kind) || requests.feedback.length === 0 || !patched(PATCHES.humanFeedback)) return {};
  const humanFeedback = requests.feedback;
  requests.feedback = [];
  live.queuedFeedback = 0;
  return { humanFeedback };
}
