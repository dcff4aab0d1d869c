// Tools for loops as records: create, list, get, update, delete, archive and restore.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ClientContext } from '../../client/context';
import {
  archiveLoop,
  createLoop,
  deleteLoop,
  getLoopWithWarnings,
  ListLoopsRequest,
  listLoops,
  restoreLoop,
  updateLoop,
  UpdateLoopRequest,
} from '../../client/loops-service';
import { DEFAULT_INFRA_BACKOFF_SECONDS, MAX_INFRA_BACKOFF_SECONDS } from '../../domain/infra-backoff';
import { DEFAULT_INFRA_RETRIES, DEFAULT_MAX_ITERATIONS, DEFAULT_SPEC_ATTEMPT_LIMIT, LoopCreateInput } from '../../domain/loop';
import { HOOK_EVENTS } from '../../domain/hooks';
import { HOOK_PLACEHOLDERS } from '../../graph/templates';
import { toolResult } from '../tool-result';
import { READ_ONLY, writes } from './annotations';
import { describeFields, LOOP_ID, LoopIdInput } from './fields';

const braced = (names: readonly string[]) => names.map((name) => `{{${name}}}`).join(' ');

const HOOKS =
  'Every event hook, replaced whole; null or {} removes them all. Keys: ' +
  HOOK_EVENTS.map((event) => `${event} (${braced(HOOK_PLACEHOLDERS[event])})`).join(', ') +
  ', each a list run in order, each hook once per event. A hook is an agent {platform, model?, prompt, timeout_minutes?}, ' +
  'its prompt using only its event’s placeholders, or a command {command, timeout_minutes?} run with bash -c in the workdir, ' +
  'which gets the values only as environment variables CANOPY_HOOK_EVENT and CANOPY_HOOK_<PLACEHOLDER> (e.g. CANOPY_HOOK_REASON). ' +
  'A failed hook warns and notifies, never changes the loop’s status';

const SETTINGS =
  `Loop settings; max_iterations is the round budget of every loop-back whose head node sets none (default ${DEFAULT_MAX_ITERATIONS}); ` +
  'max_stalled_rounds (2 to 1000, default none) blocks a loop whose head node sets none with no_progress once that many rounds in a row end the same way: the workdir unchanged and the same node failing with the same output; ' +
  `spec_attempt_limit is how many runs a spec may fail before the loop blocks instead of running it again (default ${DEFAULT_SPEC_ATTEMPT_LIMIT}); ` +
  `infra_retries is how many more attempts (0 to 10, default ${DEFAULT_INFRA_RETRIES}) an agent or check gets after an infrastructure failure before it takes its error edge, waiting infra_backoff_seconds (1 to ${MAX_INFRA_BACKOFF_SECONDS}, default ${DEFAULT_INFRA_BACKOFF_SECONDS}) before the first and twice as long before each one after; ` +
  'allow_dirty_start: true lets a spec start on uncommitted changes a failed run left in the workdir (by default the loop blocks, naming them)';

export function registerLoopTools(server: McpServer, ctx: ClientContext): void {
  server.registerTool(
    'loop_create',
    {
      title: 'Create a loop',
      description:
        'Create an empty loop bound to a working directory. Build its graph next with loop_add_node, loop_add_edge and ' +
        'loop_add_ensemble (or create a whole loop from a document with loop_import instead), and give it work with spec_create. ' +
        'Loop names are unique within a workdir.',
      inputSchema: describeFields(LoopCreateInput, { settings: SETTINGS }),
      annotations: writes({ destructive: false, idempotent: true }),
    },
    (input) => toolResult(() => createLoop(ctx, input)),
  );

  server.registerTool(
    'loop_list',
    {
      title: 'List loops',
      description:
        'List loops by name with their status and workdir. Archived loops are left out unless include_archived is true. Use loop_get for one loop’s graph and specs.',
      inputSchema: ListLoopsRequest,
      annotations: READ_ONLY,
    },
    (input) => toolResult(async () => ({ loops: await listLoops(ctx, input) })),
  );

  server.registerTool(
    'loop_get',
    {
      title: 'Get a loop',
      description:
        'One loop, archived or not, with its whole graph and its specs: every node with its id (ensemble member and quorum nodes included), ' +
        'every edge with its id and the names of its ends, and each ensemble as one unit (members, quorum settings, wiring). ' +
        'hooks lists its event hooks per event. Use it to find the ids other tools take. host names the machine whose workers run its nodes; ' +
        'warnings says when no worker serves that host (its nodes would wait for one); sandboxes lists its sandboxed runs’ worktrees not yet ' +
        'landed or discarded. For run progress use loop_info.',
      inputSchema: LoopIdInput,
      annotations: READ_ONLY,
    },
    ({ loop_id }) => toolResult(() => getLoopWithWarnings(ctx, loop_id)),
  );

  server.registerTool(
    'loop_update',
    {
      title: 'Update a loop',
      description:
        'Change a loop’s name, description, workdir, host (the machine the workdir is on; null lets any worker run it), ' +
        'settings (replaced whole), event hooks (replaced whole) or only its first on_completed hook. A new host applies from the next run. ' +
        'Fields left out keep their values. The graph is edited with the node, edge and ensemble tools, specs with spec_update.',
      inputSchema: describeFields(UpdateLoopRequest, {
        loop_id: LOOP_ID,
        name: 'New name, unique within the loop’s workdir',
        description: 'New description of what the loop is for',
        workdir: 'New working directory: the absolute path of an existing directory',
        host: 'Host id (the CANOPY_HOST_ID of its workers) of the machine the workdir is on; null lets any worker run the nodes',
        settings: `${SETTINGS}; replaces the current settings whole`,
        on_completed: `The first on_completed hook, an agent run once each time a run completes: platform, model, prompt (placeholders ${braced(HOOK_PLACEHOLDERS.on_completed)}), timeout_minutes; null removes it, leaving the other hooks`,
        hooks: HOOKS,
      }),
      annotations: writes({ destructive: true, idempotent: true }),
    },
    (input) => toolResult(() => updateLoop(ctx, input)),
  );

  server.registerTool(
    'loop_delete',
    {
      title: 'Delete a loop',
      description:
        'Delete a loop with its graph and run history for good; its specs return to the backlog. Refused while a run of it is open ' +
        '(running, paused or blocked), and while it has sandboxes not yet landed or discarded (sandbox_list). To hide a loop without losing anything, use loop_archive.',
      inputSchema: LoopIdInput,
      annotations: writes({ destructive: true, idempotent: true }),
    },
    ({ loop_id }) => toolResult(() => deleteLoop(ctx, loop_id)),
  );

  server.registerTool(
    'loop_archive',
    {
      title: 'Archive a loop',
      description:
        'Hide a loop from loop_list without losing anything: its specs and history stay and loop_get still finds it. Refused while it runs (pause it first). Undo with loop_restore.',
      inputSchema: LoopIdInput,
      annotations: writes({ destructive: false, idempotent: true }),
    },
    ({ loop_id }) => toolResult(() => archiveLoop(ctx, loop_id)),
  );

  server.registerTool(
    'loop_restore',
    {
      title: 'Restore a loop',
      description: 'Bring an archived loop back into loop_list. A plain flag flip: nothing is moved or lost.',
      inputSchema: LoopIdInput,
      annotations: writes({ destructive: false, idempotent: true }),
    },
    ({ loop_id }) => toolResult(() => restoreLoop(ctx, loop_id)),
  );
}
