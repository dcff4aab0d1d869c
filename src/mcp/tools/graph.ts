// Tools that edit a loop's graph one node or edge at a time; every edit validates the whole graph first.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ClientContext } from '../../client/context';
import {
  addEdge,
  AddEdgeRequest,
  addNode,
  AddNodeRequest,
  copyNode,
  CopyNodeRequest,
  removeEdge,
  RemoveEdgeRequest,
  removeNode,
  RemoveNodeRequest,
  updateEdge,
  UpdateEdgeRequest,
  updateNode,
  UpdateNodeRequest,
} from '../../client/graph-service';
import { AUTHORED_KIND_LIST, AUTHORED_NODE_KINDS, authoredKindLines } from '../../node-kinds/catalogue';
import { NODE_KIND_RULES } from '../../node-kinds/registry';
import { AGENT_PLACEHOLDERS, CHECK_PLACEHOLDERS } from '../../graph/templates';
import { toolResult } from '../tool-result';
import { writes } from './annotations';
import { describeFields, EDGE_ID, LOOP_ID, NODE_ID } from './fields';

const REFUSAL = 'A refused edit changes nothing and its error names each field to fix.';

/** Each kind's config keys, read from the schemas that validate them. */
const CONFIG_KEYS = AUTHORED_NODE_KINDS.map((kind) => `${kind}: ${Object.keys(NODE_KIND_RULES[kind].config.shape).join(', ')}`).join('; ');

const placeholders = (names: readonly string[]) => names.map((name) => `{{${name}}}`).join(' ');

const CONFIG =
  `Kind-specific config (${CONFIG_KEYS}). Agent prompts may use ${placeholders(AGENT_PLACEHOLDERS)}; ` +
  `check commands the same but {{human_feedback}}, and also ${placeholders(CHECK_PLACEHOLDERS.filter((name) => !(AGENT_PLACEHOLDERS as readonly string[]).includes(name)))}`;

const CONDITION =
  'pass, fail, error (an agent or check that failed for infrastructure reasons after its infra_retries; flow edges only) or always (pass or fail); on an edge leaving a router, one of its route labels';

const EDGE_TYPE =
  'flow (default: the edges the graph follows, which must form a DAG), loopback (back to an earlier node, starting a new round of a bounded loop), ' +
  'or the never-executed wires tool and agent_result';

export function registerGraphTools(server: McpServer, ctx: ClientContext): void {
  server.registerTool(
    'loop_add_node',
    {
      title: 'Add a node',
      description:
        `Add one node to a loop’s graph, of one of these kinds: ${authoredKindLines().join('; ')}. Give kind and config, or name a ` +
        `blueprint (blueprint_list) and change some of its keys with config_overrides. Ensemble members come from loop_add_ensemble, never from here. ${REFUSAL}`,
      inputSchema: describeFields(AddNodeRequest, {
        loop_id: LOOP_ID,
        kind: `${AUTHORED_KIND_LIST}; leave it out when naming a blueprint, which sets it`,
        config: `${CONFIG}. Leave it out when naming a blueprint`,
      }),
      annotations: writes({ destructive: false, idempotent: true }),
    },
    (input) => toolResult(() => addNode(ctx, input)),
  );

  server.registerTool(
    'loop_update_node',
    {
      title: 'Update a node',
      description:
        'Rename a node, move it, or replace its whole config; it keeps its id, and edges and ensemble wiring follow a rename. ' +
        `Nodes inside an ensemble change only through loop_update_ensemble. ${REFUSAL}`,
      inputSchema: describeFields(UpdateNodeRequest, {
        loop_id: 'Id of the loop the node must belong to (optional guard)',
        node_id: NODE_ID,
        name: 'New name, unique within the loop',
        position: 'New canvas position; the entry node is the lowest-position node with no incoming flow edge',
        config: `${CONFIG}. Replaces the whole config, so send every key to keep`,
      }),
      annotations: writes({ destructive: true, idempotent: true }),
    },
    (input) => toolResult(() => updateNode(ctx, input)),
  );

  server.registerTool(
    'loop_remove_node',
    {
      title: 'Remove a node',
      description:
        'Remove a node with every edge and ensemble wiring that touches it; returns the node as it was. ' +
        'Nodes inside an ensemble go with loop_remove_ensemble or loop_update_ensemble (members).',
      inputSchema: describeFields(RemoveNodeRequest, {
        loop_id: 'Id of the loop the node must belong to (optional guard)',
        node_id: NODE_ID,
      }),
      annotations: writes({ destructive: true, idempotent: true }),
    },
    (input) => toolResult(() => removeNode(ctx, input)),
  );

  server.registerTool(
    'loop_copy_node',
    {
      title: 'Copy a node',
      description:
        'Copy a node (its kind and config) under new_name into its loop or, with to_loop_id, another; its edges are not copied. ' +
        'Returns the copy. Nodes inside an ensemble are copied with loop_copy_ensemble. ' +
        REFUSAL,
      inputSchema: describeFields(CopyNodeRequest, {
        loop_id: 'Id of the loop the node must belong to (optional guard)',
        node_id: NODE_ID,
      }),
      annotations: writes({ destructive: false, idempotent: false }),
    },
    (input) => toolResult(() => copyNode(ctx, input)),
  );

  server.registerTool(
    'loop_add_edge',
    {
      title: 'Add an edge',
      description:
        'Connect two nodes (or ensembles, by name) with a condition. After a node runs, the graph follows its edges whose condition matches ' +
        'the outcome or is always; two matching edges may not leave one node. A flow edge that would close a cycle is refused: ' +
        `mark a way back as type loopback, which makes a loop bounded by max_iterations. ${REFUSAL}`,
      inputSchema: describeFields(AddEdgeRequest, {
        loop_id: LOOP_ID,
        source: 'Name of the node or ensemble the edge leaves',
        target: 'Name of the node or ensemble the edge enters',
        condition: CONDITION,
        type: EDGE_TYPE,
      }),
      annotations: writes({ destructive: false, idempotent: true }),
    },
    (input) => toolResult(() => addEdge(ctx, input)),
  );

  server.registerTool(
    'loop_update_edge',
    {
      title: 'Update an edge',
      description: `Change an edge’s condition or type; it keeps its id. To change its ends, remove it and add another. ${REFUSAL}`,
      inputSchema: describeFields(UpdateEdgeRequest, { edge_id: EDGE_ID, condition: CONDITION, type: EDGE_TYPE }),
      annotations: writes({ destructive: true, idempotent: true }),
    },
    (input) => toolResult(() => updateEdge(ctx, input)),
  );

  server.registerTool(
    'loop_remove_edge',
    {
      title: 'Remove an edge',
      description: 'Remove an edge, an ensemble’s entry or exit wiring included; returns it as it was.',
      inputSchema: describeFields(RemoveEdgeRequest, { edge_id: EDGE_ID }),
      annotations: writes({ destructive: true, idempotent: true }),
    },
    (input) => toolResult(() => removeEdge(ctx, input)),
  );
}
