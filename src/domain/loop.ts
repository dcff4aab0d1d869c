// Loops: a named graph bound to a workdir, with settings and a lifecycle status.
import { z } from 'zod';
import {
  BudgetTokens,
  BudgetUsd,
  HostId,
  Id,
  IdleTimeoutMinutes,
  MaxIterations,
  MaxStalledRounds,
  nameOf,
  ProcessText,
  Timestamp,
  TimeoutMinutes,
} from './common';
import { DEFAULT_INFRA_BACKOFF_SECONDS, MAX_INFRA_BACKOFF_SECONDS } from './infra-backoff';
import { LoopHooks } from './hooks';
import { NotifyReceivers } from './notify';

/** `waiting`: the run stands at an approval node until a person decides. */
export const LOOP_STATUSES = ['pending', 'running', 'paused', 'blocked', 'waiting', 'failed', 'completed'] as const;
export const LoopStatus = z.enum(LOOP_STATUSES);
export type LoopStatus = z.infer<typeof LoopStatus>;
/** The statuses of a loop whose run is open: its workflow should be running in Temporal. */
export const OPEN_RUN_STATUSES: readonly LoopStatus[] = ['running', 'paused', 'blocked', 'waiting'];

export const DEFAULT_MAX_ITERATIONS = 5;
export const DEFAULT_SPEC_ATTEMPT_LIMIT = 3;
export const DEFAULT_INFRA_RETRIES = 2;

export const LoopSettings = z
  .object({
    max_iterations: MaxIterations.optional().describe(
      `Round budget of every loop in the graph whose head sets none (default ${DEFAULT_MAX_ITERATIONS})`,
    ),
    max_stalled_rounds: MaxStalledRounds.optional().describe(
      "Watchdog of every loop in the graph whose head sets none: once this many rounds in a row end the same way (the workdir's tree unchanged, the same node failing with the same output), the loop blocks with no_progress until `loop continue` (2 to 1000; default: no watchdog)",
    ),
    spec_attempt_limit: z
      .number({ error: 'must be a whole number of runs, e.g. 3' })
      .int('must be a whole number, e.g. 3')
      .min(1, 'must be at least 1')
      .optional()
      .describe(
        `Runs a spec may fail before the loop stops running it: a spec that failed this many times blocks the loop until \`loop reset --specs\` gives it new attempts (default ${DEFAULT_SPEC_ATTEMPT_LIMIT})`,
      ),
    infra_retries: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be at least 0')
      .max(10, 'must be at most 10')
      .optional()
      .describe(
        `More attempts an agent or check gets, after infra_backoff_seconds, then twice that each time (at most a minute), when it fails for infrastructure reasons (spawn failure, a signal, a provider outage, a crash in its first minute) before it takes its error edge (default ${DEFAULT_INFRA_RETRIES}, 0 to 10)`,
      ),
    infra_backoff_seconds: z
      .number({ error: 'must be a whole number of seconds, e.g. 5' })
      .int('must be a whole number of seconds, e.g. 5')
      .min(1, 'must be at least 1')
      .max(MAX_INFRA_BACKOFF_SECONDS, `must be at most ${MAX_INFRA_BACKOFF_SECONDS}`)
      .optional()
      .describe(
        `The wait before the first infra retry, doubling before each one after, at most a minute (default ${DEFAULT_INFRA_BACKOFF_SECONDS}, 1 to ${MAX_INFRA_BACKOFF_SECONDS})`,
      ),
    allow_dirty_start: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe(
        'Let a spec start on uncommitted changes a failed run left in the workdir (default false: the loop blocks, naming the paths, until they are committed, stashed or discarded)',
      ),
    budget_usd: BudgetUsd.optional().describe(
      'What one run of the loop may spend on agents, in US dollars: once spent, the loop blocks with budget_exhausted before the next node, until a raised budget and `loop continue` (default: no limit)',
    ),
    budget_tokens: BudgetTokens.optional().describe(
      'What one run of the loop may use in agent tokens (input and output): once used, the loop blocks with budget_exhausted before the next node, until a raised budget and `loop continue` (default: no limit)',
    ),
    idle_timeout_minutes: IdleTimeoutMinutes.optional().describe(
      'Kill any agent, check, member or hook of this loop that printed nothing (stdout or stderr) this long, unless it sets its own: it fails as idle (default: never)',
    ),
    share_workdir: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe(
        "Run in the workdir while another loop's run is open there, and let others run beside this loop's runs (default false: a run is refused, naming the loop whose run holds the workdir; a scheduled or autorun start waits for it)",
      ),
    confine: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe(
        "false runs this loop's agents, checks and hooks unconfined, able to read canopy's home and see other processes (default: confined by bubblewrap wherever it works, unless config.json says confine: false)",
      ),
    notify: NotifyReceivers.optional().describe(
      "Receivers told of this loop's events (approval_needed, blocked, failed, completed, budget_exhausted, idle_killed, no_progress), besides those of config.json: [{ url, events, format: json|slack|ntfy }]",
    ),
  })
  .strict();
export type LoopSettings = z.infer<typeof LoopSettings>;

/** The first on_completed hook as an agent, as loop_update has always taken it. */
export const OnCompletedHook = z
  .object({
    platform: z.string().min(1).describe('Agent platform that runs the hook'),
    model: z.string().min(1).optional().describe('Model passed to the platform'),
    prompt: ProcessText.min(1).describe('Prompt; placeholders {{loop_name}} {{loop_id}} {{workdir}} {{completed_specs}}'),
    timeout_minutes: TimeoutMinutes.optional().describe('Kill the hook after this long (default 30)'),
  })
  .strict();
export type OnCompletedHook = z.infer<typeof OnCompletedHook>;

export const LoopName = nameOf(200);

export const LoopCreateInput = z
  .object({
    name: LoopName.describe('Loop name, unique within its workdir'),
    workdir: z.string().min(1).describe('Absolute path of the existing directory the loop works in'),
    description: z.string().default('').describe('What the loop is for'),
    settings: LoopSettings.default({}),
  })
  .strict();
export type LoopCreateInput = z.input<typeof LoopCreateInput>;

export const LoopUpdateInput = z
  .object({
    name: LoopName.optional(),
    description: z.string().optional(),
    workdir: z.string().min(1).optional().describe('Absolute path of the existing directory the loop works in'),
    settings: LoopSettings.optional(),
    on_completed: OnCompletedHook.nullable()
      .optional()
      .describe('The first on_completed hook, an agent fired once when a run completes; null removes it (the other hooks stay)'),
    hooks: LoopHooks.nullable().optional().describe('Every event hook, replaced whole; null or {} removes them all'),
    host: HostId.nullable()
      .optional()
      .describe('Host id (CANOPY_HOST_ID) of the machine the workdir is on, whose workers run the nodes; null lets any worker run them'),
  })
  .strict();
export type LoopUpdateInput = z.infer<typeof LoopUpdateInput>;

export const Loop = z.object({
  id: Id,
  name: z.string(),
  workdir: z.string(),
  host: z
    .string()
    .nullable()
    .describe('Host id of the machine the workdir is on: only its workers run the nodes; null (loops made before hosts) lets any worker'),
  description: z.string(),
  status: LoopStatus,
  settings: LoopSettings,
  hooks: LoopHooks.describe('What the loop runs on its events: lists of agent or command hooks per event'),
  archived: z.boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Loop = z.infer<typeof Loop>;
