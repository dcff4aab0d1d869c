// Tools an agent canopy started uses to report on its own node run, authorised by that run's token alone.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ClientContext } from '../../client/context';
import { completeNode, reportBlocker } from '../../client/self-report-service';
import type { McpAccess } from '../access';
import { toolResult } from '../tool-result';
import { writes } from './annotations';

const RUN_TOKEN_ARGUMENT = {
  run_token: z
    .string()
    .min(1)
    .optional()
    .describe('Your run token; default: CANOPY_RUN_TOKEN in this MCP server’s environment, which canopy sets for the agents it starts'),
};

interface RunTokenSource {
  /** Extra input fields the token needs: none when the connection itself carries it. */
  fields: typeof RUN_TOKEN_ARGUMENT | Record<string, never>;
  tokenOf(input: { run_token?: string }): string;
}

/**
 * A run-token connection reports on its own run. Over stdio the agent names its run with an
 * argument that defaults to CANOPY_RUN_TOKEN, since `canopy mcp` inherits the agent's environment.
 * Over HTTP a token travels only in the Authorization header, so an operator connection offers no
 * self-report tools at all: an agent connects with its own token instead.
 */
function runTokenSource(access: McpAccess): RunTokenSource | null {
  if (access.kind === 'run') return { fields: {}, tokenOf: () => access.runToken };
  if (access.transport === 'stdio')
    return { fields: RUN_TOKEN_ARGUMENT, tokenOf: (input) => input.run_token ?? process.env.CANOPY_RUN_TOKEN ?? '' };
  return null;
}

/** The self-report tools as an agent sees them, with `fields` added to their input (how a connection names its run). */
export function selfReportTools<F extends z.ZodRawShape>(fields: F) {
  return {
    complete: {
      name: 'loop_complete_node',
      config: {
        title: 'Report your node’s result',
        description:
          'Call this before you exit, once your work for this node is done: pass or fail, and the output the next node should read. ' +
          'Your report decides the node’s outcome whatever your exit code (only a timeout or a commit without commit rights overrides it); ' +
          'without one, a node that requires a report fails as no_report. ' +
          'Calling it again replaces the report. It acts only on your own run, and only while it runs.',
        inputSchema: z.strictObject({
          status: z.enum(['pass', 'fail']).describe('pass when the work this node asked for is done and right, fail otherwise'),
          output: z
            .string()
            .optional()
            .describe('What you produced or found; the next node reads it as {{previous_output}} instead of your stdout'),
          ...fields,
        }),
        annotations: writes({ destructive: true, idempotent: true }),
      },
    },
    blocker: {
      name: 'loop_report_blocker',
      config: {
        title: 'Ask a human for help',
        description:
          'Use this when you cannot go on without a person: missing access, an unclear or contradictory spec, a decision that is not yours. ' +
          'The loop stops as blocked after your node and a human is notified with your reason; they resume it. Do not use it for ordinary failures: ' +
          'report those with loop_complete_node status fail.',
        inputSchema: z.strictObject({
          reason: z.string().min(1).describe('What the human must do or decide, specifically enough to act on'),
          ...fields,
        }),
        annotations: writes({ destructive: false, idempotent: false }),
      },
    },
  } as const;
}

export function registerSelfReportTools(server: McpServer, ctx: ClientContext, access: McpAccess): void {
  const source = runTokenSource(access);
  if (!source) return;
  const { complete, blocker } = selfReportTools(source.fields);
  server.registerTool(complete.name, complete.config, ({ status, output, ...token }) =>
    toolResult(() => completeNode(ctx, { run_token: source.tokenOf(token), status, output })),
  );
  server.registerTool(blocker.name, blocker.config, ({ reason, ...token }) =>
    toolResult(() => reportBlocker(ctx, { run_token: source.tokenOf(token), reason })),
  );
}
