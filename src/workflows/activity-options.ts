// The loop-run workflow's activity proxies and their option sets, in one place. Every call names
// what it does (`summary`), so the Temporal UI's timeline tells the story.
import { ActivityCancellationType, proxyActivities, proxyLocalActivities, type ActivityInterfaceFor } from '@temporalio/workflow';
import { NODE_MAX_ATTEMPTS, type EngineSettings, type LoopActivities } from '../contract';

type Proxy = (summary: string) => ActivityInterfaceFor<LoopActivities>;

/** The kinds of work a loop run schedules, each with its timeouts, retries and queue. */
export interface LoopRunActivities {
  /** Claims that must happen once (a loop run, a spec): regular activities, whose completion the server records. */
  claims: Proxy;
  /** Reads, and writes a second try writes again: local activities, without the server's round trips. */
  bookkeeping: Proxy;
  /** Gates and routers: pure functions of the stored upstream output, run as local activities. */
  evaluation: Proxy;
  /** Agents, checks, quorums and hooks, on the workdir's host, heartbeating. */
  execution: Proxy;
  /** Ensemble members: executions on the member queue of the workdir's host, where they wait for a slot. */
  member: Proxy;
  /** Short work on the workdir's host that must happen once there (opening the sandbox): regular activities. */
  onHost: Proxy;
  /** Reads of the workdir (HEAD, its tree) on its host; local activities for a loop with no host. */
  workdirReads: Proxy;
}

// Every retry is bounded: a store that stays unreachable fails the run instead of hanging it.
const BOOKKEEPING = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
} as const;

const EVALUATION = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: NODE_MAX_ATTEMPTS },
} as const;

// Node timeouts are enforced inside the activity (it kills the process group); the heartbeat
// timeout is what notices a dead worker, and a retry then resumes the same node run.
function executionOptions(engine: EngineSettings) {
  return {
    startToCloseTimeout: '25 hours',
    heartbeatTimeout: `${engine.heartbeatTimeoutSeconds} seconds`,
    retry: {
      initialInterval: '500 milliseconds',
      backoffCoefficient: 2,
      maximumInterval: '10 seconds',
      maximumAttempts: NODE_MAX_ATTEMPTS,
    },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  } as const;
}

/** Claims made before the run knows its host (the loop run itself). */
export const claims: Proxy = (summary) => proxyActivities<LoopActivities>({ ...BOOKKEEPING, summary });

/** Bookkeeping, which needs no host: local activities. */
export const bookkeeping: Proxy = (summary) => proxyLocalActivities<LoopActivities>({ ...BOOKKEEPING, summary });

/** Where a loop run's work goes: `host`, the workdir's host queue (undefined for a loop with no host), and `members`, its member queue. */
export interface RunQueues {
  host: string | undefined;
  members: string;
}

/**
 * The proxies of one loop run. What touches the workdir goes to its host's queue; with no host it
 * stays on the workflow's own queue, where any worker takes it.
 */
export function loopRunActivities(engine: EngineSettings, queues: RunQueues): LoopRunActivities {
  const hostQueue = queues.host;
  const onQueue = hostQueue ? { taskQueue: hostQueue } : {};
  const onHost: Proxy = (summary) => proxyActivities<LoopActivities>({ ...BOOKKEEPING, ...onQueue, summary });
  return {
    claims,
    bookkeeping,
    evaluation: (summary) => proxyLocalActivities<LoopActivities>({ ...EVALUATION, summary }),
    execution: (summary) => proxyActivities<LoopActivities>({ ...executionOptions(engine), ...onQueue, summary }),
    member: (summary) => proxyActivities<LoopActivities>({ ...executionOptions(engine), taskQueue: queues.members, summary }),
    onHost,
    // A local activity runs on the worker that runs the workflow task, which may be on any host.
    workdirReads: hostQueue ? onHost : bookkeeping,
  };
}
