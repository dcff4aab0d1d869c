// `canopy loop ensemble update`: change an ensemble's prompt, members, settings or wiring.
import type { Command } from 'commander';
import { action, emit } from '../../../output';
import { badOption, jsonOptions, readJsonOption } from '../json-option';

export function registerEnsembleUpdate(ensemble: Command): void {
  const command = ensemble
    .command('update <loop_id> <ensemble_name>')
    .description(
      'Change an ensemble: the fields to change as JSON (prompt_template, kind, members, min_pass, straggler_timeout_minutes, quorum_grace_minutes, timeout_minutes, idle_timeout_minutes, isolation, ' +
        'entry_from, on_pass_to, on_fail_to, position); null removes an optional one. ' +
        'add_entry_from and remove_entry_from add or remove entries ({"node": name} or {"ensemble": name}, with a condition, ' +
        "default always); entry_from replaces them all; entry_from_node and entry_condition change an ensemble's one entry. " +
        'on_pass_to and on_fail_to take a node\'s name or {"ensemble": name}. ' +
        'Members without a prompt_override take a new prompt_template.',
    );
  jsonOptions(command, 'config', 'the fields to change')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, name: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../../client/context') as typeof import('../../../../client/context');
        const { updateEnsemble } = require('../../../../client/graph-service') as typeof import('../../../../client/graph-service');
        const { describeEnsemble } = require('../../../text/describe') as typeof import('../../../text/describe');
        const changes = readJsonOption(options, 'config');
        if (!changes) throw badOption('--config', 'is required: give the fields to change with --config or --config-file');
        const updated = await withContext((ctx) => updateEnsemble(ctx, { ...changes, loop_id: loopId, name }));
        emit(updated, options, (e) => `Updated ${describeEnsemble(e)}.`);
      }),
    );
}
