// The loop export file: a shape and instructions, never ids, workdir, specs or state. Export writes
// the newest format_version; import reads every version, each meaning what it meant when written.
import { z } from 'zod';
import { EdgeType } from './edge';
import { EnsembleInput } from './ensemble';
import { LoopHooks } from './hooks';
import { LoopName, LoopSettings } from './loop';
import { NodeKind } from './node';

/** The version export writes. */
export const FORMAT_VERSION = 2;

/**
 * The keys version 2 added, of ensembles and of settings. A later key joins version 2 here (and in
 * EnsembleInput or LoopSettings); a version-1 file that carries one is refused, naming the version it needs.
 */
const ENSEMBLE_KEYS_SINCE_VERSION_2 = ['quorum_grace_minutes', 'idle_timeout_minutes', 'isolation'] as const;
const SETTINGS_KEYS_SINCE_VERSION_2 = [
  'spec_attempt_limit',
  'infra_retries',
  'infra_backoff_seconds',
  'allow_dirty_start',
  'idle_timeout_minutes',
  'budget_usd',
  'budget_tokens',
  'share_workdir',
  'confine',
] as const;
/** The key version 2 added to the config of agent and check nodes. */
const NODE_CONFIG_KEYS_SINCE_VERSION_2 = ['idle_timeout_minutes'] as const;
/** The top-level key version 2 added: the loop's event hooks. */
const HOOKS_KEY = 'hooks';
/** The edge condition version 2 added: the error outcome of agents and checks (a router's label of that name is older). */
const ERROR_CONDITION = 'error';

const SUPPORTED_VERSIONS = Array.from({ length: FORMAT_VERSION }, (_, index) => index + 1);

export const ExportNode = z
  .object({
    name: z.string().min(1),
    kind: NodeKind,
    position: z.number(),
    config: z.record(z.string(), z.unknown()),
  })
  .strict();
export type ExportNode = z.infer<typeof ExportNode>;

export const ExportEdge = z
  .object({
    source: z.string().min(1),
    target: z.string().min(1),
    condition: z.string().min(1),
    type: EdgeType.optional(),
  })
  .strict();
export type ExportEdge = z.infer<typeof ExportEdge>;

/** What every version holds. */
const documentFields = {
  name: LoopName,
  description: z.string().default(''),
  nodes: z.array(ExportNode),
  edges: z.array(ExportEdge),
};

const needsVersion2 = (key: string) => `needs format_version 2 (this file says 1); set format_version to 2 or remove ${key}`;

/** The schema as version 1 reads it: the same, refusing each key of version 2. */
function ofVersion1<S extends z.ZodType<object>>(schema: S, keysSinceVersion2: readonly string[]) {
  return schema.superRefine((value, ctx) => {
    for (const key of keysSinceVersion2.filter((name) => name in value)) {
      ctx.addIssue({ code: 'custom', path: [key], message: needsVersion2(key) });
    }
  });
}

export const ExportDocument = z.discriminatedUnion(
  'format_version',
  [
    z
      .object({
        format_version: z.literal(1),
        ...documentFields,
        settings: ofVersion1(LoopSettings, SETTINGS_KEYS_SINCE_VERSION_2).optional(),
        ensembles: z.array(ofVersion1(EnsembleInput, ENSEMBLE_KEYS_SINCE_VERSION_2)).default([]),
        [HOOKS_KEY]: z.never({ error: needsVersion2(HOOKS_KEY) }).optional(),
      })
      .strict()
      .superRefine(refuseErrorConditions)
      .superRefine(refuseNodeConfigKeys),
    z
      .object({
        format_version: z.literal(2),
        ...documentFields,
        settings: LoopSettings.optional(),
        ensembles: z.array(EnsembleInput).default([]),
        [HOOKS_KEY]: LoopHooks.optional(),
      })
      .strict(),
  ],
  { error: `format_version must be one of ${SUPPORTED_VERSIONS.join(', ')}; a newer file needs a newer canopy` },
);
export type ExportDocument = z.infer<typeof ExportDocument>;

function refuseNodeConfigKeys(document: { nodes: ExportNode[] }, ctx: z.RefinementCtx): void {
  document.nodes.forEach((node, index) => {
    for (const key of NODE_CONFIG_KEYS_SINCE_VERSION_2.filter((name) => name in node.config))
      ctx.addIssue({ code: 'custom', path: ['nodes', index, 'config', key], message: needsVersion2(key) });
  });
}

/** Version 1 had no error condition: an edge (or ensemble entry) on error is refused unless it leaves a router, where it is a label. */
function refuseErrorConditions(
  document: { nodes: ExportNode[]; edges: ExportEdge[]; ensembles: { entry_from_node?: string; entry_condition?: string }[] },
  ctx: z.RefinementCtx,
): void {
  const routers = new Set(document.nodes.filter((node) => node.kind === 'router').map((node) => node.name));
  const isError = (source: string | undefined, condition: string | undefined) =>
    condition === ERROR_CONDITION && !(source !== undefined && routers.has(source));
  document.edges.forEach((edge, index) => {
    if (isError(edge.source, edge.condition))
      ctx.addIssue({ code: 'custom', path: ['edges', index, 'condition'], message: needsVersion2('the error edge') });
  });
  document.ensembles.forEach((ensemble, index) => {
    if (isError(ensemble.entry_from_node, ensemble.entry_condition))
      ctx.addIssue({ code: 'custom', path: ['ensembles', index, 'entry_condition'], message: needsVersion2('the error condition') });
  });
}
