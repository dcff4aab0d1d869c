// Tools for node blueprints: reusable {name, kind, config} templates that loop_add_node can start from.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { BlueprintInput } from '../../domain/blueprint';
import { createBlueprint, deleteBlueprint, DeleteBlueprintRequest, listBlueprints } from '../../client/blueprints-service';
import type { ClientContext } from '../../client/context';
import { toolResult } from '../tool-result';
import { READ_ONLY, writes } from './annotations';
import { describeFields } from './fields';
import { AUTHORED_KIND_LIST } from '../../node-kinds/catalogue';

export function registerBlueprintTools(server: McpServer, ctx: ClientContext): void {
  server.registerTool(
    'blueprint_list',
    {
      title: 'List blueprints',
      description:
        'List node blueprints, builtins first, with their kind and config. Name one in loop_add_node instead of writing a whole config.',
      inputSchema: z.strictObject({}),
      annotations: READ_ONLY,
    },
    () => toolResult(async () => ({ blueprints: await listBlueprints(ctx) })),
  );

  server.registerTool(
    'blueprint_create',
    {
      title: 'Create a blueprint',
      description:
        'Save a reusable node template for loop_add_node. Its config is checked as a node of its kind, placeholders included. ' +
        'Names are unique, and builtin names are taken.',
      inputSchema: describeFields(BlueprintInput, {
        name: 'Blueprint name: letters, digits, "_" and "-"',
        kind: `Kind of node it makes: ${AUTHORED_KIND_LIST}`,
        config: 'Config of the node it makes, checked against the kind (see loop_add_node)',
      }),
      annotations: writes({ destructive: false, idempotent: true }),
    },
    (input) => toolResult(() => createBlueprint(ctx, input)),
  );

  server.registerTool(
    'blueprint_delete',
    {
      title: 'Delete a blueprint',
      description: 'Delete a custom blueprint. Builtins cannot be deleted. Nodes made from it keep their config.',
      inputSchema: DeleteBlueprintRequest,
      annotations: writes({ destructive: true, idempotent: true }),
    },
    (input) => toolResult(() => deleteBlueprint(ctx, input)),
  );
}
