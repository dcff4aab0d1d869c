// Tools for ensembles: 2 to 8 agents given one prompt in parallel and joined by a quorum, edited as one unit.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ClientContext } from '../../client/context';
import {
  addEnsemble,
  AddEnsembleRequest,
  copyEnsemble,
  CopyEnsembleRequest,
  removeEnsemble,
  RemoveEnsembleRequest,
  updateEnsemble,
  UpdateEnsembleRequest,
} from '../../client/graph-service';
import { MAX_ENSEMBLE_MEMBERS, MIN_ENSEMBLE_MEMBERS } from '../../domain/ensemble';
import { toolResult } from '../tool-result';
import { writes } from './annotations';
import { describeFields, LOOP_ID } from './fields';

const MEMBERS =
  `${MIN_ENSEMBLE_MEMBERS} to ${MAX_ENSEMBLE_MEMBERS} agent members, each {platform, model, prompt_override, timeout_minutes, idle_timeout_minutes}, all optional; ` +
  'members differ by platform/model, or review from another angle with their own prompt_override';

const QUORUM_GRACE =
  'Once min_pass members passed, minutes the others may still take; then those still running are cancelled and fail as quorum_met ' +
  '(0 cuts them at once; unset waits for every member)';

const IDLE =
  'A member that printed nothing on stdout or stderr this many minutes is killed and fails as idle (default: the loop’s idle_timeout_minutes, else never)';

const ISOLATION =
  '"worktree": each member works in a git worktree of its own made from the workdir (HEAD plus uncommitted changes), its diff ' +
  'joins its quorum section, and the workdir is left as it was; "shared" (default): every member works in the workdir';

const KIND =
  'How the members run: "parallel" (default) every member side by side, the quorum passing with min_pass of them; ' +
  '"cascade" one member at a time in order, the first that passes ends it (it starts with the member that passed last); ' +
  '"round_robin" one member per entry into the ensemble, the same one again after a pass and the next after a failure. ' +
  'cascade and round_robin pass with the one member that passed: min_pass is 1 and quorum_grace_minutes is refused';

const ENTRY = '{"node": name} or {"ensemble": name} with its condition (pass, fail, error, always, or a router’s label; default always)';

const ENTRY_FROM = `Entries into the ensemble, each ${ENTRY}; one per node or ensemble`;

const ROUTE = 'Node (by its name) or ensemble (as {"ensemble": name}, chaining the quorums) the quorum routes to';

const ENSEMBLE_REF = {
  ensemble_id: 'Id of the ensemble (loop_get lists ensembles); give this or name',
  name: 'Name of the ensemble; give this or ensemble_id',
};

export function registerEnsembleTools(server: McpServer, ctx: ClientContext): void {
  server.registerTool(
    'loop_add_ensemble',
    {
      title: 'Add an ensemble',
      description:
        'Add an ensemble in one call: its member agent nodes, the quorum node that joins them, and its wiring: ' +
        'entries from any number of nodes or ensembles, and where the quorum routes on pass and on fail (a node or another ensemble). ' +
        'Every member gets the same prompt; by default (kind parallel) they run side by side, the quorum passes when at least min_pass ' +
        'members passed and its output has one `## <platform/model> [pass|fail]` section per member that ran. With quorum_grace_minutes ' +
        'the quorum stops waiting that long after min_pass members passed. kind cascade or round_robin has them take turns instead. ' +
        'Use it for N cheap models drafting or reviewing the same thing, or a cheap model first with a stronger one behind it. ' +
        'Nested ensembles are refused. A refused ensemble changes nothing and its error names each field to fix.',
      inputSchema: describeFields(AddEnsembleRequest, {
        loop_id: LOOP_ID,
        name: 'Ensemble name, unique among the loop’s nodes and ensembles',
        kind: KIND,
        members: MEMBERS,
        min_pass: 'Members that must pass for the quorum to pass (default: all of them)',
        straggler_timeout_minutes: 'A member still running this long after its start is killed and counted as a fail',
        quorum_grace_minutes: QUORUM_GRACE,
        timeout_minutes: 'Timeout of each member in minutes (default 30); a member’s own timeout_minutes wins',
        idle_timeout_minutes: `${IDLE}; a member’s own idle_timeout_minutes wins`,
        isolation: ISOLATION,
        entry_from: ENTRY_FROM,
        entry_from_node: 'The older form of one entry: node whose outcome starts the ensemble',
        entry_condition: 'Condition of entry_from_node’s entry (default always)',
        on_pass_to: `${ROUTE} on pass`,
        on_fail_to: `${ROUTE} on fail`,
        from_node: 'Same as entry_from_node',
        condition: 'Same as entry_condition',
      }),
      annotations: writes({ destructive: false, idempotent: true }),
    },
    (input) => toolResult(() => addEnsemble(ctx, input)),
  );

  server.registerTool(
    'loop_update_ensemble',
    {
      title: 'Update an ensemble',
      description:
        'Change an ensemble’s shared prompt (every member without its own prompt_override takes it), its members, its quorum settings or its wiring ' +
        '(add_entry_from and remove_entry_from change entries one at a time), ' +
        'without touching member nodes directly. Fields left out stay; null clears an optional setting or removes that wiring. ' +
        'Ensembles are not renamed: remove one and add another.',
      inputSchema: describeFields(UpdateEnsembleRequest, {
        loop_id: LOOP_ID,
        ...ENSEMBLE_REF,
        prompt_template: 'New prompt shared by every member without its own prompt_override',
        kind: `${KIND}; null: parallel`,
        members: `${MEMBERS}; replaces the member list`,
        min_pass: 'Members that must pass for the quorum to pass; null: all of them',
        straggler_timeout_minutes:
          'A member still running this long after its start is killed and counted as a fail; null removes the limit',
        quorum_grace_minutes: `${QUORUM_GRACE}; null: wait for every member again`,
        timeout_minutes: 'Timeout of each member in minutes; null: the default (30)',
        idle_timeout_minutes: `${IDLE}; null: the loop’s default`,
        isolation: `${ISOLATION}; null: shared`,
        entry_from: `${ENTRY_FROM}; replaces every entry (null removes them all)`,
        add_entry_from: `Entries to add, each ${ENTRY}; refused for a node or ensemble the ensemble already has an entry from`,
        remove_entry_from: `Entries to remove, each ${ENTRY} (the condition, when given, must match); refused for an entry it does not have`,
        entry_from_node: 'For an ensemble of one entry: the node or ensemble it comes from; null removes it',
        entry_condition: 'For an ensemble of one entry: its condition; null: always',
        on_pass_to: `${ROUTE} on pass; null removes that wiring`,
        on_fail_to: `${ROUTE} on fail; null removes that wiring`,
      }),
      annotations: writes({ destructive: true, idempotent: true }),
    },
    (input) => toolResult(() => updateEnsemble(ctx, input)),
  );

  server.registerTool(
    'loop_remove_ensemble',
    {
      title: 'Remove an ensemble',
      description: 'Remove an ensemble with its member and quorum nodes and every edge and wiring touching it; returns it as it was.',
      inputSchema: describeFields(RemoveEnsembleRequest, { loop_id: LOOP_ID, ...ENSEMBLE_REF }),
      annotations: writes({ destructive: true, idempotent: true }),
    },
    (input) => toolResult(() => removeEnsemble(ctx, input)),
  );

  server.registerTool(
    'loop_copy_ensemble',
    {
      title: 'Copy an ensemble',
      description:
        'Copy an ensemble (its members and settings) under new_name into its loop or, with to_loop_id, another; its wiring ' +
        '(entry, on_pass_to, on_fail_to) is not copied: wire the copy with loop_update_ensemble. Returns the copy.',
      inputSchema: describeFields(CopyEnsembleRequest, { loop_id: LOOP_ID, ...ENSEMBLE_REF }),
      annotations: writes({ destructive: false, idempotent: false }),
    },
    (input) => toolResult(() => copyEnsemble(ctx, input)),
  );
}
