// Named patches of the loop-run workflow. A change to the workflow's sequence of commands goes
// behind `patched(id)`, so runs recorded before it replay on the code path they took; the ids
// stay here, and the histories recorded before each change stay in the replay fixtures, until
// the patch is deprecated and removed. The newest id comes last: it names the era of
// test/fixtures/histories that new recordings go to.
export const PATCHES = {
  /**
   * Bookkeeping that may run twice (statuses, the run's end, the topology, HEAD) runs as local
   * activities, which cost the server no task-queue round trips, and the completion hook
   * activity is scheduled only when the loop has a hook.
   */
  localBookkeeping: 'local-bookkeeping',
  /** The CanopyLoopStatus search attribute follows the loop's status, so the UI's list filters by it. */
  statusSearchAttribute: 'status-search-attribute',
  /** Continue-as-new is also taken at the start of a round, so one long spec no longer grows its history without bound. */
  roundContinueAsNew: 'round-continue-as-new',
  /**
   * A local activity that failed for good (its workdir is a file, a gate was deleted) reaches the
   * workflow as an ApplicationFailure rather than an ActivityFailure; it fails the loop run with
   * its reason, recorded, instead of failing the workflow and leaving the loop marked running.
   */
  localFailuresFailTheRun: 'local-failures-fail-the-run',
  /**
   * The activities that touch the workdir or its processes (nodes, quorums, the completion hook,
   * HEAD) go to the task queue of the loop's host, so they run where the workdir is; HEAD is
   * then read by a regular activity, since a local one runs on whichever worker runs the workflow.
   */
  hostQueues: 'host-queues',
  /**
   * An ensemble with quorum_grace_minutes gives its other members that long (a timer) once min_pass
   * passed, then cancels the ones still running and records them, with the ones never started, as
   * quorum_met (a bookkeeping activity) before the quorum joins.
   */
  quorumGrace: 'quorum-grace',
  /**
   * A spec that failed the loop's spec_attempt_limit runs is not claimed: the loop blocks at its
   * checkpoint with the reason, claims again on continue (skip marks the spec skipped), and a
   * resumed spec that was reset meanwhile starts over.
   */
  specAttemptLimit: 'spec-attempt-limit',
  /**
   * An agent or check that failed for infrastructure reasons (infra_* failure kinds) runs again,
   * infra_retries times after a backoff timer, each attempt its own node run; then it takes its
   * error edge instead of routing on fail.
   */
  infraErrorEdge: 'infra-error-edge',
  /**
   * A spec that starts afresh reads HEAD and the uncommitted paths together (an activity on the
   * host); when a failed run left changes there and the loop does not allow a dirty start, the loop
   * blocks at its checkpoint, reading the tree again on continue (skip marks the spec skipped).
   */
  dirtyTreeGuard: 'dirty-tree-guard',
  /**
   * A sandboxed run (`sandbox` in its input) first opens its git worktree with an activity on the
   * workdir's host, then runs every node, HEAD reading and the completion hook there.
   */
  sandboxedRuns: 'sandboxed-runs',
  /**
   * The loop's hooks run on each of its events, each event's list by one activity scheduled only
   * when the bookkeeping step that marks the event says there are hooks for it: on_blocked on
   * entering blocked, on_spec_completed after each spec completes, on_failed and on_completed
   * (which replaces runCompletionHook) before the run returns.
   */
  eventHooks: 'event-hooks',
} as const;
