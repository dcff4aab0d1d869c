// Tools that run and steer loops on Temporal: preflight, run, pause, continue, reset, autorun, schedules, and the status view.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { requestAutorun } from '../../client/autorun-service';
import type { ClientContext } from '../../client/context';
import { loopStatus } from '../../client/loop-status-service';
import { preflight } from '../../client/preflight-service';
import { resetLoop } from '../../client/reset-service';
import { continueLoop, pauseLoop, startLoopRun, stopLoop } from '../../client/runs-service';
import { ScheduleLoopRequest, scheduleLoop, unscheduleLoop } from '../../client/schedule-service';
import { Id } from '../../domain/common';
import { toolResult } from '../tool-result';
import { READ_ONLY, writes } from './annotations';
import { describeFields, LOOP_ID, LoopIdInput, QUEUE_ID } from './fields';

const RunRequest = z.strictObject({
  loop_id: Id.describe(LOOP_ID),
  queue_id: Id.optional().describe(`${QUEUE_ID}; drain this queue’s pending specs instead of the loop’s own`),
  sandbox: z
    .boolean()
    .optional()
    .describe(
      'Run in a fresh git worktree of the workdir on branch canopy/sandbox-<loop run id>, so runs of loops sharing a repository never share a tree; ' +
        'sandbox_land merges it back, sandbox_discard removes it. Needs the workdir in a git repository with a commit',
    ),
});

const ContinueRequest = z.strictObject({
  loop_id: Id.describe(LOOP_ID),
  strategy: z
    .enum(['retry', 'skip'])
    .default('retry')
    .describe('retry reruns the failed or blocked node (default); skip treats it as passed'),
});

const ResetRequest = z.strictObject({
  loop_id: Id.describe(LOOP_ID),
  specs: z
    .array(z.string().min(1))
    .optional()
    .describe('Reset only these specs, by name or id; the others keep their status. Leave it out to reset every spec'),
});

const AutorunRequest = z.strictObject({
  loop_id: Id.describe(LOOP_ID),
  at: z
    .string()
    .min(1)
    .optional()
    .describe('Future ISO-8601 time, e.g. 2026-12-01T09:00:00Z; leave it and quota_reset_message out to cancel'),
  quota_reset_message: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Instead of at: the agent CLI's usage-limit words, e.g. 'resets 3pm (Europe/Paris)'; resumes a little after, at most 24 h away",
    ),
});

export function registerRunTools(server: McpServer, ctx: ClientContext): void {
  server.registerTool(
    'loop_preflight',
    {
      title: 'Check a loop is ready to run',
      description:
        'Check everything loop_run needs, one check each with what to fix: the graph validates, every agent has a platform that is configured ' +
        'and whose binary is on PATH, the workdir exists and is a clean git repository, and there are pending specs. Changes nothing.',
      inputSchema: z.strictObject({
        loop_id: Id.describe(LOOP_ID),
        probe: z
          .boolean()
          .optional()
          .describe(
            'Also run each platform the loop uses once with a tiny prompt (seconds; spends a few tokens) and say whether it answers',
          ),
      }),
      annotations: READ_ONLY,
    },
    ({ loop_id, probe }) => toolResult(() => preflight(ctx, loop_id, { probe })),
  );

  server.registerTool(
    'loop_run',
    {
      title: 'Run a loop',
      description:
        'Start a durable run that drains the loop’s pending specs in order (or a queue’s, with queue_id) through its graph, spawning agents and ' +
        'commands in its workdir. Returns at once; follow it with loop_info. One run per loop at a time; refused for archived loops, without ' +
        'pending specs, and while another loop’s run is open in the same workdir (naming it), unless the loop’s settings say share_workdir. ' +
        'workers_polling 0 means no worker executes it yet (start `canopy up`); warnings also says when no worker serves ' +
        'the loop’s host, whose runs wait until one with that CANOPY_HOST_ID starts. With sandbox the run works in a worktree of its own ' +
        '(sandbox_list shows it). Needs Temporal.',
      inputSchema: RunRequest,
      annotations: writes({ destructive: true, idempotent: false, startsAgents: true }),
    },
    ({ loop_id, queue_id, sandbox }) => toolResult(() => startLoopRun(ctx, loop_id, { queueId: queue_id, sandbox })),
  );

  server.registerTool(
    'loop_pause',
    {
      title: 'Pause a loop',
      description:
        'Ask a running loop to stop after the node running now; resume it with loop_continue. Only a running loop can be paused.',
      inputSchema: LoopIdInput,
      annotations: writes({ destructive: false, idempotent: true }),
    },
    ({ loop_id }) => toolResult(() => pauseLoop(ctx, loop_id)),
  );

  server.registerTool(
    'loop_continue',
    {
      title: 'Continue a loop',
      description:
        'Resume a paused or blocked loop in its open run, or restart a failed loop from the node where it failed. ' +
        'strategy retry reruns that node; skip treats it as passed. Other statuses are refused (a completed loop needs loop_reset, then loop_run).',
      inputSchema: ContinueRequest,
      annotations: writes({ destructive: true, idempotent: false, startsAgents: true }),
    },
    ({ loop_id, strategy }) => toolResult(() => continueLoop(ctx, loop_id, strategy)),
  );

  server.registerTool(
    'loop_stop',
    {
      title: 'Stop a loop',
      description:
        'Stop the loop’s open run whatever state it is in (running, paused, blocked, hung, or its workflow gone): cancels the workflow, ' +
        'killing the process groups of its running nodes, terminates it if it does not finish cancelling within a minute, and leaves ' +
        'the loop failed with reason stopped, so loop_reset can return it to pending. When the run had already ended and only its hooks ' +
        'still run, stops those and keeps the run\'s outcome (stopped: "hooks"), so a failed loop can still be continued. ' +
        'Refused when no run of the loop is open. Needs Temporal.',
      inputSchema: LoopIdInput,
      annotations: writes({ destructive: true, idempotent: false }),
    },
    ({ loop_id }) => toolResult(() => stopLoop(ctx, loop_id)),
  );

  server.registerTool(
    'loop_reset',
    {
      title: 'Reset a loop',
      description:
        'Return the loop’s specs (or only those in specs) to pending with their failure counts cleared, giving a spec stopped by ' +
        'spec_attempt_limit new attempts. A completed, failed or pending loop becomes pending (a failed one loses its resume point) for loop_run; ' +
        'a paused or blocked loop keeps its run, and loop_continue goes on with the reset specs. Refused while a node of the loop runs, naming it.',
      inputSchema: ResetRequest,
      annotations: writes({ destructive: true, idempotent: true }),
    },
    ({ loop_id, specs }) => toolResult(() => resetLoop(ctx, loop_id, { specs })),
  );

  server.registerTool(
    'loop_schedule_autorun',
    {
      title: 'Schedule a loop to resume',
      description:
        'Resume the loop once at a future time, e.g. after a quota resets: a pending loop starts, a failed, paused or blocked one continues (retry). ' +
        'Replaces any pending autorun; without at it cancels it. Needs Temporal.',
      inputSchema: AutorunRequest,
      annotations: writes({ destructive: true, idempotent: true, startsAgents: true }),
    },
    ({ loop_id, at, quota_reset_message }) => toolResult(() => requestAutorun(ctx, loop_id, { at, quota_reset_message })),
  );

  server.registerTool(
    'loop_schedule',
    {
      title: 'Run a loop on a recurring schedule',
      description:
        'Run the loop at every cron time (cron, read in timezone) or at an interval (every): each firing drains the loop’s pending specs, ' +
        'or queue_id’s, as loop_run would. A firing while a run of the loop is open starts nothing (loop_info shows the skips), nor does one ' +
        'with no pending specs. Give exactly one of cron and every. Replaces the loop’s schedule in place; loop_unschedule removes it, and so ' +
        'do loop_delete and loop_archive. Needs Temporal.',
      inputSchema: describeFields(ScheduleLoopRequest, {
        loop_id: LOOP_ID,
        queue_id: `${QUEUE_ID}; each firing drains this queue’s pending specs instead of the loop’s own`,
      }),
      annotations: writes({ destructive: true, idempotent: true, startsAgents: true }),
    },
    (input) => toolResult(() => scheduleLoop(ctx, input)),
  );

  server.registerTool(
    'loop_unschedule',
    {
      title: 'Remove a loop’s schedule',
      description:
        'Remove the loop’s recurring schedule, so it fires no more; a run it started goes on. removed is false when the loop had none. Needs Temporal when it has one.',
      inputSchema: LoopIdInput,
      annotations: writes({ destructive: true, idempotent: true }),
    },
    ({ loop_id }) => toolResult(() => unscheduleLoop(ctx, loop_id)),
  );

  server.registerTool(
    'loop_info',
    {
      title: 'Loop status',
      description:
        'Where a loop stands: its status and specs, its last run (failing node, failure kind, reason, resume point), the progress of the queue ' +
        'that run drained, its recurring schedule (timing, next firings, whether the last one started a run or skipped, and why), ' +
        'and, while a run is open, the workflow’s live state (spec, node, rounds, ensemble members) and warnings, ' +
        'e.g. that no worker serves the loop’s host. ' +
        'The first step of diagnosing a failure; the node runs themselves come from loop_node_runs_list.',
      inputSchema: LoopIdInput,
      annotations: READ_ONLY,
    },
    ({ loop_id }) => toolResult(() => loopStatus(ctx, loop_id)),
  );
}
