// `canopy loop update`: rename, describe, move (to another workdir or host), set the round budget, the no-progress watchdog, the spec attempt limit, infra retries or whether a spec may start on a dirty tree, or set or remove the first on_completed hook.
import path from 'node:path';
import type { Command } from 'commander';
import { action, emit } from '../../output';
import { parseJsonObject } from '../../json-object';
import { badOption, jsonOptions, readJsonOption } from './json-option';

interface UpdateOptions {
  name?: string;
  description?: string;
  workdir?: string;
  /** A host id, or false for --no-host. */
  host?: string | false;
  maxIterations?: number;
  /** A number of rounds, or false for --no-max-stalled-rounds. */
  maxStalledRounds?: number | false;
  specAttemptLimit?: number;
  infraRetries?: number;
  infraBackoffSeconds?: number;
  allowDirtyStart?: boolean;
  shareWorkdir?: boolean;
  idleTimeoutMinutes?: number;
  budgetUsd?: number;
  budgetTokens?: number;
  /** Each receiver's JSON, or false for --no-notify. */
  notify?: string[] | false;
  removeOnCompleted?: boolean;
  json?: boolean;
}

export function registerLoopUpdate(loop: Command): void {
  const command = loop
    .command('update <loop_id>')
    .description(
      'Change a loop’s name, description, workdir, host, round budget, no-progress watchdog, spec attempt limit, infra retries and their backoff, dirty start, workdir sharing, idle timeout, budgets, notification receivers or on_completed hook',
    )
    .option('--name <name>', 'new name, unique within the workdir')
    .option('--description <text>', 'new description')
    .option('--workdir <dir>', 'new workdir, an existing directory (relative to the current directory)')
    .option('--host <id>', 'host id (CANOPY_HOST_ID) of the machine the workdir is on: only its workers run the nodes')
    .option('--no-host', 'let any worker run the nodes (no host affinity)')
    .option('--max-iterations <n>', 'round budget of loops whose head sets none', Number)
    .option(
      '--max-stalled-rounds <n>',
      'block a loop whose head sets none with no_progress once this many rounds in a row end the same way: the tree unchanged, the same node failing with the same output (2 to 1000)',
      Number,
    )
    .option('--no-max-stalled-rounds', 'remove the loop’s no-progress watchdog (the default: none)')
    .option('--spec-attempt-limit <n>', 'runs a spec may fail before the loop blocks instead of running it again (default 3)', Number)
    .option('--infra-retries <n>', 'more attempts (0 to 10, default 2) an agent or check gets after an infrastructure failure', Number)
    .option('--infra-backoff-seconds <n>', 'wait before the first infra retry, doubling before each one after (1 to 60, default 5)', Number)
    .option('--allow-dirty-start', 'let a spec start on uncommitted changes a failed run left in the workdir')
    .option('--no-allow-dirty-start', 'block the loop instead when a spec would start on them (the default)')
    .option('--share-workdir', 'let the loop run in its workdir while another loop’s run is open there, and others beside it')
    .option('--no-share-workdir', 'one loop at a time in the workdir: a run is refused while another loop’s is open there (the default)')
    .option(
      '--idle-timeout-minutes <n>',
      'kill any agent, check, member or hook that sets none when it printed nothing this long; it fails as idle (default: never)',
      Number,
    )
    .option(
      '--budget-usd <dollars>',
      'what one run may spend on agents; once spent the loop blocks with budget_exhausted (default: no limit)',
      Number,
    )
    .option(
      '--budget-tokens <n>',
      'agent tokens (in and out) one run may use; once used the loop blocks with budget_exhausted (default: no limit)',
      Number,
    )
    .option(
      '--notify <json>',
      'a notification receiver, {"url", "events"?, "format"?: json|slack|ntfy} (repeat for more); replaces the loop’s list',
      (value: string, list: string[] = []) => [...list, value],
    )
    .option('--no-notify', 'remove the loop’s notification receivers');
  jsonOptions(
    command,
    'on-completed',
    'the first on_completed hook, an agent fired once when a run completes: {"platform", "model"?, "prompt", "timeout_minutes"?} (`loop hook` edits every hook)',
  )
    .option('--remove-on-completed', 'remove the first on_completed hook')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: UpdateOptions & Record<string, unknown>) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { requireLoop } = require('../../../client/design-service') as typeof import('../../../client/design-service');
        const { updateLoop } = require('../../../client/loops-service') as typeof import('../../../client/loops-service');
        const { describeLoop } = require('../../text/describe') as typeof import('../../text/describe');
        const hook = readJsonOption(options, 'on-completed');
        if (hook && options.removeOnCompleted) throw badOption('--remove-on-completed', 'give it or --on-completed, not both');
        const changedSettings = Object.entries({
          max_iterations: options.maxIterations,
          max_stalled_rounds: options.maxStalledRounds === false ? null : options.maxStalledRounds,
          spec_attempt_limit: options.specAttemptLimit,
          infra_retries: options.infraRetries,
          infra_backoff_seconds: options.infraBackoffSeconds,
          allow_dirty_start: options.allowDirtyStart,
          share_workdir: options.shareWorkdir,
          idle_timeout_minutes: options.idleTimeoutMinutes,
          budget_usd: options.budgetUsd,
          budget_tokens: options.budgetTokens,
          notify: options.notify === false ? [] : options.notify?.map((receiver) => parseReceiver(receiver)),
        }).filter(([, value]) => value !== undefined);
        const updated = await withContext(async (ctx) =>
          updateLoop(ctx, {
            loop_id: loopId,
            name: options.name,
            description: options.description,
            workdir: options.workdir && path.resolve(options.workdir),
            host: options.host === false ? null : options.host,
            // The service replaces settings whole; an option changes only its own setting.
            settings: changedSettings.length ? withChanges((await requireLoop(ctx.db, loopId)).settings, changedSettings) : undefined,
            on_completed: options.removeOnCompleted ? null : hook,
          }),
        );
        emit(updated, options, (l) => `Updated loop ${describeLoop(l)}.`);
      }),
    );
}

/** The loop's settings with each changed one set, or removed where its value is null. */
function withChanges(settings: Record<string, unknown>, changed: [string, unknown][]): Record<string, unknown> {
  const merged = { ...settings, ...Object.fromEntries(changed) };
  return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== null));
}

function parseReceiver(text: string): Record<string, unknown> {
  return parseJsonObject(text, {
    subject: 'The command line',
    field: '--notify',
    syntaxHint: `quote it for the shell, e.g. '{"url": "https://ntfy.sh/my-topic"}'`,
  });
}
