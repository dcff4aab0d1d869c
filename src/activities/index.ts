// Every activity of the worker, bound to the process's store and settings.
import { approvalActivities } from './approval-node';
import { bookkeepingActivities } from './bookkeeping';
import type { LoopActivities } from '../contract';
import type { ActivityDeps } from './deps';
import { eventHookActivities } from './event-hooks';
import { nonRetryableWhenDeterministic } from './failures';
import { heartbeatingThroughout } from './heartbeats';
import { nodeActivities } from './node-activities';
import { notificationActivities } from './notifications';
import { quorumCutActivities } from './quorum-cuts';
import { roundEndActivities } from './round-ends';
import { memberWorktreeActivities } from './member-worktree-activities';
import { sandboxActivities } from './sandbox-activities';
import { scheduleActivities } from './schedule-activities';
import { specStartActivities } from './spec-start';

/**
 * What changes a loop's workdirs (or removes them), or reads the paths its nodes left uncommitted:
 * each waits for the scans of the loop's last nodes, so that a scan sees the tree its node left.
 */
const AFTER_WORKDIR_SCANS: ReadonlySet<string> = new Set<keyof LoopActivities>([
  'runNode',
  'joinQuorum',
  'openApproval',
  'openMemberWorktrees',
  'removeMemberWorktrees',
  'openSandbox',
  'runHooks',
  'inspectSpecStart',
  'openNextSpec',
  'finishSpec',
  'finishLoopRun',
]);

type Activity = (...args: unknown[]) => Promise<unknown>;

function afterWorkdirScans(deps: ActivityDeps, activity: Activity): Activity {
  return async (...args) => {
    await deps.workdirScans.settled((args[0] as { loopId: string }).loopId);
    return activity(...args);
  };
}

export function createActivities(deps: ActivityDeps): LoopActivities {
  const activities: LoopActivities = {
    ...bookkeepingActivities(deps),
    ...nodeActivities(deps),
    ...approvalActivities(deps),
    ...quorumCutActivities(deps),
    ...sandboxActivities(deps),
    ...memberWorktreeActivities(deps),
    ...eventHookActivities(deps),
    ...scheduleActivities(deps),
    ...specStartActivities(deps),
    ...notificationActivities(deps),
    ...roundEndActivities(deps),
    resumeLoop: ({ loopId, waitForWorkdir }) => deps.resumeLoop(loopId, waitForWorkdir),
  };
  const entries = Object.entries(activities) as [string, Activity][];
  return Object.fromEntries(
    entries.map(([name, activity]) => [
      name,
      heartbeatingThroughout(
        nonRetryableWhenDeterministic(name, AFTER_WORKDIR_SCANS.has(name) ? afterWorkdirScans(deps, activity) : activity),
      ),
    ]),
  ) as unknown as LoopActivities;
}
