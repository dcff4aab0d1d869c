// `canopy loop ensemble add`: an ensemble as one unit, from its fields given as JSON.
import type { Command } from 'commander';
import { action, emit } from '../../../output';
import { badOption, jsonOptions, readJsonOption } from '../json-option';

export function registerEnsembleAdd(ensemble: Command): void {
  const command = ensemble
    .command('add <loop_id>')
    .description(
      'Add an ensemble of 2-8 agents and its quorum in one go. Fields: name, prompt_template, kind ("parallel", the default: members side ' +
        'by side; "cascade": one at a time in order until one passes; "round_robin": one member per entry, taking turns), members [{platform, model, ' +
        'prompt_override, timeout_minutes, idle_timeout_minutes}], min_pass, straggler_timeout_minutes, quorum_grace_minutes (once min_pass ' +
        'passed, minutes the others may still take before they are cut short; 0: at once), timeout_minutes, idle_timeout_minutes (a member ' +
        'silent on stdout and stderr that long is killed as idle), isolation ("worktree": each member in a git worktree of its own, its diff ' +
        'in the quorum, the workdir untouched; default "shared"), entry_from (entries, each {"node": name} or {"ensemble": name} ' +
        'with its condition, default always; or one entry as entry_from_node (or from_node) and entry_condition (or condition)), ' +
        'on_pass_to, on_fail_to (a node\'s name or {"ensemble": name}), position',
    );
  jsonOptions(command, 'config', 'the ensemble’s fields')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../../client/context') as typeof import('../../../../client/context');
        const { addEnsemble } = require('../../../../client/graph-service') as typeof import('../../../../client/graph-service');
        const { describeEnsemble } = require('../../../text/describe') as typeof import('../../../text/describe');
        const fields = readJsonOption(options, 'config');
        if (!fields) throw badOption('--config', 'is required: give the ensemble’s fields with --config or --config-file');
        const added = await withContext((ctx) => addEnsemble(ctx, { ...fields, loop_id: loopId }));
        emit(added, options, (e) => `Added ${describeEnsemble(e)}.`);
      }),
    );
}
