// Node runs: one record per execution of a node, with its full input and output.
import { z } from 'zod';
import { Id, Timestamp } from './common';
import { HookEvent } from './hooks';

/** `waiting`: an approval node waiting for a person's decision, with no process. */
export const NODE_RUN_STATUSES = ['running', 'waiting', 'pass', 'fail', 'cancelled'] as const;
export const NodeRunStatus = z.enum(NODE_RUN_STATUSES);
export type NodeRunStatus = z.infer<typeof NodeRunStatus>;

export const FAILURE_KINDS = [
  'exit_code',
  'timeout',
  'no_output',
  'no_report',
  'reported_fail',
  'commit_rights',
  'straggler',
  'quorum_met',
  'iteration_limit',
  'gate',
  'quorum',
  'spawn_error',
  'cancelled',
  'invalid_config',
  'store_constraint',
  'infra',
  'stopped',
  'workflow_closed',
  'quota',
  'infra_spawn',
  'infra_signal',
  'infra_outage',
  'infra_crash',
  'infra_lost',
  'infra_disk',
  'idle',
  'disk_full',
  'rejected',
  'no_progress',
] as const;
export const FailureKind = z.enum(FAILURE_KINDS);
export type FailureKind = z.infer<typeof FailureKind>;

/** What an activity attempt that did not finish left behind, kept when a retry starts the record afresh. */
export const NodeRunAttempt = z.object({
  infra_attempt: z.number().int(),
  activity_attempt: z.number().int(),
  status: NodeRunStatus,
  stdout: z.string(),
  stderr: z.string(),
  exit_code: z.number().int().nullable(),
  reported_status: z.enum(['pass', 'fail']).nullable(),
  reported_output: z.string().nullable(),
});
export type NodeRunAttempt = z.infer<typeof NodeRunAttempt>;

/** A remark a person sent a running loop, as the agent run that was given it records it. */
export const HumanFeedback = z.object({
  message: z.string(),
  by: z.string().describe('Who sent it'),
  at: Timestamp.describe('When the run queued it'),
});
export type HumanFeedback = z.infer<typeof HumanFeedback>;

export const NodeRun = z.object({
  id: Id,
  loop_id: Id,
  spec_id: Id.nullable(),
  node_id: Id.nullable(),
  node_name: z.string(),
  kind: z.string(),
  workflow_id: z.string().nullable(),
  round: z.number().int(),
  attempt: z.number().int(),
  infra_attempt: z
    .number()
    .int()
    .describe(
      'Which run of the node this is: 1, or n for the nth after infrastructure failures (each its own record, "infra attempt n" in the Temporal UI)',
    ),
  activity_attempt: z
    .number()
    .int()
    .describe(
      "Temporal's attempt of the activity that recorded it: above 1 when a worker was lost mid-node and a retry carried on in this record",
    ),
  status: NodeRunStatus,
  outcome: z.string().nullable().describe('pass, fail, or a router label'),
  failure_kind: FailureKind.nullable(),
  reason: z.string().nullable(),
  input: z.string(),
  stdout: z.string(),
  stderr: z.string(),
  exit_code: z.number().int().nullable(),
  reported_status: z.enum(['pass', 'fail']).nullable(),
  reported_output: z.string().nullable(),
  unreported: z.boolean(),
  head_before: z.string().nullable(),
  head_after: z.string().nullable(),
  pgid: z.number().int().nullable(),
  stale: z.boolean(),
  executed_platform: z.string().nullable().describe('The agent platform that ran, for agent nodes'),
  executed_model: z.string().nullable().describe('The model asked for, or the one the CLI reported using'),
  input_tokens: z.number().int().nullable().describe('Tokens in, as the CLI reported them (cache reads included)'),
  cached_input_tokens: z
    .number()
    .int()
    .nullable()
    .describe('Of the tokens in, those the provider read from its prompt cache (billed for less); null when the CLI did not say'),
  output_tokens: z.number().int().nullable(),
  cost_usd: z.number().nullable().describe('Cost in USD, when the CLI reports it'),
  executed_host: z
    .string()
    .nullable()
    .describe('Host id (CANOPY_HOST_ID) of the worker that executed it; null in runs recorded before hosts'),
  started_at: Timestamp,
  ended_at: Timestamp.nullable(),
  attempts: z
    .array(NodeRunAttempt)
    .describe('Earlier activity attempts in this record that did not finish, oldest first; only the last attempt decides'),
  recovery: z
    .string()
    .nullable()
    .describe(
      "How a retry after a lost worker carried on: adopting the attempt's still-running process, or running the node again and why",
    ),
  dirty_paths: z
    .array(z.string())
    .nullable()
    .describe(
      'Paths git reported changed or untracked in the workdir after an agent or check ran ([] when clean); null when not read (not a git repository, or a node that does not work in the tree)',
    ),
  hook_event: HookEvent.nullable().describe('For a hook run (kind hook): the event it ran for; null for graph nodes'),
  hook_index: z.number().int().nullable().describe('For a hook run: its index in the event’s list of hooks'),
  deadline: Timestamp.nullable().describe('For an approval: when it decides by itself as its on_timeout says; null when it waits for ever'),
  decided_by: z
    .string()
    .nullable()
    .describe('For an approval: who decided it (a person, an MCP token\'s name, or "timeout"); null until decided'),
  decided_at: Timestamp.nullable().describe('For an approval: when it was decided'),
  human_feedback: z
    .array(HumanFeedback)
    .nullable()
    .describe('The remarks a person sent the running loop (`canopy loop feedback`) that this agent run was given; null when none'),
  session_id: z
    .string()
    .nullable()
    .describe("For an agent run: the id of the CLI's session, as the CLI reported it, which a later run of the node may continue"),
  session_workdir: z.string().nullable().describe('For an agent run with a session: the directory the CLI worked in'),
  resumed: z.boolean().describe("For an agent run: it continued an earlier run's session, told the node's resume_prompt"),
  cold_start_reason: z
    .string()
    .nullable()
    .describe('For an agent run meant to resume (resume: true, or an ensemble member): why it started cold with the full prompt'),
});
export type NodeRun = z.infer<typeof NodeRun>;
