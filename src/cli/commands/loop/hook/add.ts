// `canopy loop hook add`: append a command or agent hook to one event's list.
import type { Command } from 'commander';
import { HOOK_EVENTS } from '../../../../domain/vocabulary';
import { HOOK_PLACEHOLDERS } from '../../../../graph/templates';
import { action, emit } from '../../../output';

interface AddOptions {
  event: string;
  command?: string;
  platform?: string;
  model?: string;
  prompt?: string;
  timeoutMinutes?: number;
  json?: boolean;
}

export function registerHookAdd(hook: Command): void {
  hook
    .command('add <loop_id>')
    .description(
      'Add a hook to the end of an event’s list: a command (its values only in CANOPY_HOOK_* environment variables) or an agent. ' +
        `Placeholders per event: ${HOOK_EVENTS.map((event) => `${event}: ${HOOK_PLACEHOLDERS[event].join(', ')}`).join('; ')}`,
    )
    .requiredOption('--event <event>', `the event: ${HOOK_EVENTS.join(', ')}`)
    .option('--command <command>', 'a command hook: run with bash -c in the workdir')
    .option('--platform <platform>', 'an agent hook: the agent platform that runs it')
    .option('--prompt <text>', 'an agent hook: its prompt, with the event’s {{placeholders}}')
    .option('--model <model>', 'an agent hook: the model (default: the platform’s)')
    .option('--timeout-minutes <n>', 'kill the hook after this long (default 10 for a command, 30 for an agent)', Number)
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: AddOptions) => {
        const { withContext } = require('../../../../client/context') as typeof import('../../../../client/context');
        const { addHook } = require('../../../../client/hooks-service') as typeof import('../../../../client/hooks-service');
        const { hookLines } = require('../../../text/describe') as typeof import('../../../text/describe');
        const { event, json: _json, timeoutMinutes, ...fields } = options;
        const loop = await withContext((ctx) =>
          addHook(ctx, { loop_id: loopId, event, hook: { ...fields, timeout_minutes: timeoutMinutes } }),
        );
        emit(loop.hooks, options, (hooks) => `Hooks of loop ${loop.name} (${loop.id}):\n${hookLines(hooks).join('\n')}`);
      }),
    );
}
