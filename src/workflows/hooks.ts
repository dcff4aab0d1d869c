// Firing a loop's hooks for one of its events (on_completed, on_failed, on_blocked, on_spec_completed).
import { ActivityFailure, isCancellation, log } from '@temporalio/workflow';
import type { HookFacts } from '../contract';
import type { HookEvent } from '../domain/hooks';
import type { LoopRun } from './run-state';

/** Runs the loop's hooks for one occurrence of an event; hooks that could not run at all are logged, never the run's failure. */
export async function fireHooks(run: LoopRun, event: HookEvent, occurrence: string, facts: HookFacts): Promise<void> {
  const { loopId, loopRunId, completedSpecIds, sandboxWorkdir } = run;
  try {
    await run.activities
      .execution(`${event} hooks`)
      .runHooks({ loopId, loopRunId, event, occurrence, completedSpecIds, facts, ...sandboxWorkdir });
  } catch (error) {
    if (isCancellation(error) || !(error instanceof ActivityFailure)) throw error;
    log.warn(`The ${event} hooks of loop ${loopId} could not run: ${error.cause?.message ?? error.message}`);
  }
}
