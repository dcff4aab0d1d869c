// Tools for specs: units of work bound to a loop, or kept in the standalone backlog.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ClientContext } from '../../client/context';
import {
  createSpec,
  deleteSpec,
  DeleteSpecRequest,
  ListSpecsRequest,
  listSpecs,
  updateSpec,
  UpdateSpecRequest,
} from '../../client/specs-service';
import { SPEC_STATUSES, SpecCreateInput } from '../../domain/spec';
import { toolResult } from '../tool-result';
import { READ_ONLY, writes } from './annotations';
import { describeFields, SPEC_ID } from './fields';

const STATUS = SPEC_STATUSES.join(', ');

export function registerSpecTools(server: McpServer, ctx: ClientContext): void {
  server.registerTool(
    'spec_create',
    {
      title: 'Create a spec',
      description:
        'Add a unit of work: at the end of a loop’s specs (a run drains its pending specs in order) or, without loop_id, to the backlog, ' +
        'optionally tagged with a workdir. Backlog specs run through a queue (queue_add_spec, then loop_run with queue_id). ' +
        'Each call adds a new spec, even with a name already used.',
      inputSchema: describeFields(SpecCreateInput, {
        name: 'Short name of the work; {{spec_name}} in prompts',
        loop_id: 'Loop to bind the spec to; null or left out keeps it in the backlog',
        workdir: 'Workdir tag, for filtering backlog specs (made absolute)',
      }),
      annotations: writes({ destructive: false, idempotent: false }),
    },
    (input) => toolResult(() => createSpec(ctx, input)),
  );

  server.registerTool(
    'spec_list',
    {
      title: 'List specs',
      description: 'List specs in their order; the filters combine. Without filters, every spec of every loop and the backlog.',
      inputSchema: describeFields(ListSpecsRequest, { status: `Only specs with this status: ${STATUS}` }),
      annotations: READ_ONLY,
    },
    (input) => toolResult(async () => ({ specs: await listSpecs(ctx, input) })),
  );

  server.registerTool(
    'spec_update',
    {
      title: 'Update a spec',
      description:
        'Change a spec’s name, content, status, loop, workdir tag or budgets; fields left out stay. loop_id null moves it to the backlog; ' +
        'a spec moved to another list goes to its end. Set status pending to have a run take it again.',
      inputSchema: describeFields(UpdateSpecRequest, {
        spec_id: SPEC_ID,
        name: 'New name',
        content: 'New content: what to do ({{spec_content}} in prompts)',
        status: `New status: ${STATUS}`,
        loop_id: 'Loop to move the spec to; null moves it to the backlog',
        workdir: 'New workdir tag; null removes it',
      }),
      annotations: writes({ destructive: true, idempotent: true }),
    },
    (input) => toolResult(() => updateSpec(ctx, input)),
  );

  server.registerTool(
    'spec_delete',
    {
      title: 'Delete a spec',
      description: 'Delete a spec for good; queues holding it drop it. Node runs that worked on it stay in the history.',
      inputSchema: describeFields(DeleteSpecRequest, { spec_id: SPEC_ID }),
      annotations: writes({ destructive: true, idempotent: true }),
    },
    (input) => toolResult(() => deleteSpec(ctx, input)),
  );
}
