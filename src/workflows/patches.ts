// The versioning of the loop-run workflow. canopy 0.2.0 is its baseline: no branches. Every later
// change to workflow code that open runs may replay goes behind a patch check on an id from here
// (`patched` from @temporalio/workflow), the newest id last, so runs started before it replay on the
// path they took; the histories recorded with each patch stay in test/fixtures/histories/<id>/
// beside the older eras. One minor release after a patch ships, its check becomes `deprecatePatch`
// (the eras from before it go, and REPLAYS_FROM in contract/ moves up to the release that shipped
// it); the release after removes the call (REPLAYS_FROM moves up to the deprecating release).
// See docs/contributing.md.
export const PATCHES = {
  /** Ensemble members run on their host's member queue, capped there across every loop, instead of a few per ensemble. */
  memberQueues: 'member-queues',
  /** A loop with budget_usd or budget_tokens asks, before each node, whether its run may go on, and blocks when not. */
  loopBudgets: 'loop-budgets',
  /** An ensemble with isolation "worktree" runs each member in a worktree of its own and diffs it in the quorum. */
  memberWorktrees: 'member-worktrees',
  /**
   * A run's bookkeeping in fewer trips: the next spec is claimed on the workdir's host with the tree it
   * starts on and its graph (one activity where there were three), a run whose record the request made
   * begins in a local activity, and a spec's finish says whether another is left to claim.
   */
  specOpenings: 'spec-openings',
  /**
   * A loop with a host runs its workflow on that host's queue, beside its nodes, so Temporal hands each
   * node to the worker in its reply to the workflow task; the input names the shared queue.
   */
  hostWorkflows: 'host-workflows',
  /**
   * A scheduled or autorun start that finds its loop's workdir held by another loop's open run waits
   * for it (a timer, trying again) and says so in its memo, instead of skipping the firing or failing.
   */
  workdirWaits: 'workdir-waits',
  /**
   * An approval node: the walk records the node waiting, then waits for the decide update (or its
   * timeout's timer) with no activity running, and records the decision.
   */
  approvalNodes: 'approval-nodes',
  /**
   * Remarks a person sends a running loop (the feedback update) are queued in the run, carried across
   * continue-as-new, and handed to the next agent or ensemble the walk runs.
   */
  humanFeedback: 'human-feedback',
  /** Entering blocked tells the activity why and where, which the blocked notification says. */
  notifyBlockers: 'notify-blockers',
  /** An ensemble of kind cascade or round_robin runs its members one at a time, taking turns, instead of side by side. */
  ensembleKinds: 'ensemble-kinds',
  /**
   * A loop with max_stalled_rounds reads, at each round's end that followed a failure, the workdir's tree
   * and the failing node's output (one activity), and blocks with no_progress when rounds repeat.
   */
  stalledRounds: 'stalled-rounds',
} as const satisfies Record<string, string>;
