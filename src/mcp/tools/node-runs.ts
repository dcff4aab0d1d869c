// Tools for node run history: list runs to find the one that failed, then read its full input and output.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ClientContext } from '../../client/context';
import { getRun, listRunPage, MAX_RUNS_LISTED } from '../../client/node-runs-service';
import { Id } from '../../domain/common';
import { toolResult } from '../tool-result';
import { READ_ONLY } from './annotations';
import { LOOP_ID, NODE_ID, SPEC_ID } from './fields';

const ListRunsRequest = z.strictObject({
  loop_id: Id.describe(LOOP_ID),
  node_id: Id.optional().describe(`${NODE_ID}; only this node’s runs`),
  spec_id: Id.optional().describe(`${SPEC_ID}; only runs for this spec`),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_RUNS_LISTED)
    .optional()
    .describe(`How many runs, newest first (default 20, at most ${MAX_RUNS_LISTED})`),
  before: Id.optional().describe('The next_cursor of the page before: list the runs older than it'),
});

const GetRunRequest = z.strictObject({ run_id: Id.describe('Id of the node run (loop_node_runs_list lists them)') });

export function registerNodeRunTools(server: McpServer, ctx: ClientContext): void {
  server.registerTool(
    'loop_node_runs_list',
    {
      title: 'List node runs',
      description:
        '{ runs, next_cursor, blocked }: a loop’s node runs, newest first: node, spec, round, outcome, failure kind, reason and a short excerpt of the output; ' +
        'for an agent, what ran it and used (platform, model, tokens, cost), its CLI session_id, whether it resumed an earlier run’s session, and cold_start_reason; ' +
        'blocked says why the loop is blocked now (a no_progress or budget_exhausted blocker begins with its kind), null when it is not. ' +
        'Use it to find the run that failed, then read it whole with loop_node_run_get. Secret-shaped text is redacted. ' +
        'next_cursor, when not null, is the `before` that lists the page of older runs; every run is reachable this way.',
      inputSchema: ListRunsRequest,
      annotations: READ_ONLY,
    },
    (input) => toolResult(() => listRunPage(ctx, input)),
  );

  server.registerTool(
    'loop_node_run_get',
    {
      title: 'Get a node run',
      description:
        'One node run in full: the rendered prompt or command it got, stdout, stderr, exit code, its self-report, HEAD before and after, ' +
        'infra_attempt (n for the nth run of the node after infrastructure failures, each its own record) and activity_attempt (above 1 when a worker died and a retry carried on in this record); ' +
        'for an agent, session_id (its CLI session), resumed (it continued an earlier run’s session, told its resume_prompt) and cold_start_reason (why it started cold although it was to resume). ' +
        'Secret-shaped text is redacted; outputs can be large.',
      inputSchema: GetRunRequest,
      annotations: READ_ONLY,
    },
    ({ run_id }) => toolResult(() => getRun(ctx, run_id)),
  );
}
