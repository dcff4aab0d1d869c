// Tools that move a loop's design as one document: export it, or create a new loop from one.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ClientContext } from '../../client/context';
import { exportLoop, importLoop } from '../../client/export-import-service';
import { Id } from '../../domain/common';
import { FORMAT_VERSION } from '../../domain/export-document';
import { toolResult } from '../tool-result';
import { READ_ONLY, writes } from './annotations';
import { LOOP_ID } from './fields';

const ExportRequest = z.strictObject({
  loop_id: Id.describe(LOOP_ID),
  with_models: z
    .boolean()
    .optional()
    .describe(
      'Keep platform and model on agent nodes and ensemble members; only for restoring your own loop on your own machine (default false)',
    ),
});

// The document is checked by the import itself, which reports every problem at once by its path in the file.
const ImportRequest = z.strictObject({
  document: z
    .union([z.record(z.string(), z.unknown()), z.string()])
    .describe(
      `The loop file (format_version ${FORMAT_VERSION} as loop_export returns it, or an earlier version): the JSON object, or its text`,
    ),
  workdir: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Working directory of the new loop; defaults to the current directory of the canopy process serving this connection, so give it',
    ),
  name: z
    .string()
    .min(1)
    .optional()
    .describe('Name of the new loop instead of the file’s; a taken name gets a numeric suffix, e.g. "My Loop (2)"'),
});

export function registerExportImportTools(server: McpServer, ctx: ClientContext): void {
  server.registerTool(
    'loop_export',
    {
      title: 'Export a loop',
      description:
        `A loop’s design as one format_version ${FORMAT_VERSION} document: name, description, settings, nodes, edges (by node name) and ensembles as units. ` +
        'No ids, workdir, specs or run state, and by default no platform or model, so it can be shared, reviewed as a diff, and recreated with loop_import. ' +
        'Refused when two nodes share a name.',
      inputSchema: ExportRequest,
      annotations: READ_ONLY,
    },
    ({ loop_id, with_models }) => toolResult(() => exportLoop(ctx, loop_id, { with_models })),
  );

  server.registerTool(
    'loop_import',
    {
      title: 'Import a loop',
      description:
        'Create a new loop from an exported document; it never updates an existing loop. Nothing is written unless the whole document is valid, ' +
        'and a refusal lists every problem by its path in the file. The result names the loop it made and, in nodes_missing_platform, ' +
        'every agent node and ensemble member without a platform: set those (loop_update_node, loop_update_ensemble) before loop_run.',
      inputSchema: ImportRequest,
      annotations: writes({ destructive: false, idempotent: false }),
    },
    ({ document, workdir, name }) => toolResult(() => importLoop(ctx, document, { workdir, name })),
  );
}
