// The loop export file: a shape and instructions, never ids, workdir, specs or state. Export writes
// the newest format_version; import reads every version, each meaning what it meant when written.
import { z } from 'zod';
import { EdgeType } from './edge';
import { EnsembleInput, type EnsembleTarget } from './ensemble';
import { LoopHooks } from './hooks';
import { LoopName, LoopSettings } from './loop';
import { NodeKind } from './node';

/** The version export writes. */
export const FORMAT_VERSION = 3;

/**
 * The keys version 2 added, of ensembles and of settings; an older file that carries a key of a later
 * version is refused, naming the version it needs. A new key joins the newest version's list.
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
/**
 * The keys version 3 added: of settings, the loop's own notification receivers and its no-progress
 * watchdog; of ensembles, how the members run and a list of entries (an older file gives one, as
 * entry_from_node); of every node's config, the watchdog on a loop's head and an agent's session resume.
 */
const SETTINGS_KEYS_SINCE_VERSION_3 = ['notify', 'max_stalled_rounds'] as const;
const ENSEMBLE_KEYS_SINCE_VERSION_3 = ['kind', 'entry_from'] as const;
const NODE_CONFIG_KEYS_SINCE_VERSION_3 = ['max_stalled_rounds', 'resume', 'resume_prompt'] as const;
/** The key version 3 added to an ensemble's members: a member that never continues its session. */
const MEMBER_KEYS_SINCE_VERSION_3 = ['resume'] as const;
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

const needsVersion = (needed: number, given: number, key: string) =>
  `needs format_version ${needed} (this file says ${given}); set format_version to ${needed} or remove ${key}`;
const needsVersion2 = (key: string) => needsVersion(2, 1, key);

/** The schema as an older version reads it: the same, refusing each key a later version added (key to the version that added it). */
function ofVersion<S extends z.ZodType<object>>(schema: S, given: number, keysSince: Readonly<Record<number, readonly string[]>>) {
  return schema.superRefine((value, ctx) => {
    for (const [needed, keys] of Object.entries(keysSince))
      for (const key of keys.filter((name) => name in value))
        ctx.addIssue({ code: 'custom', path: [key], message: needsVersion(Number(needed), given, key) });
  });
}

export const ExportDocument = z.discriminatedUnion(
  'format_version',
  [
    z
      .object({
        format_version: z.literal(1),
        ...documentFields,
        settings: ofVersion(LoopSettings, 1, { 2: SETTINGS_KEYS_SINCE_VERSION_2, 3: SETTINGS_KEYS_SINCE_VERSION_3 }).optional(),
        ensembles: z
          .array(
            ofVersion(EnsembleInput, 1, { 2: ENSEMBLE_KEYS_SINCE_VERSION_2, 3: ENSEMBLE_KEYS_SINCE_VERSION_3 }).superRefine(
              refuseVersion3EnsembleForms(1),
            ),
          )
          .default([]),
        [HOOKS_KEY]: z.never({ error: needsVersion2(HOOKS_KEY) }).optional(),
      })
      .strict()
      .superRefine(refuseErrorConditions)
      .superRefine(refuseNodeConfigKeys(1, { 2: NODE_CONFIG_KEYS_SINCE_VERSION_2, 3: NODE_CONFIG_KEYS_SINCE_VERSION_3 })),
    z
      .object({
        format_version: z.literal(2),
        ...documentFields,
        settings: ofVersion(LoopSettings, 2, { 3: SETTINGS_KEYS_SINCE_VERSION_3 }).optional(),
        ensembles: z
          .array(ofVersion(EnsembleInput, 2, { 3: ENSEMBLE_KEYS_SINCE_VERSION_3 }).superRefine(refuseVersion3EnsembleForms(2)))
          .default([]),
        [HOOKS_KEY]: LoopHooks.optional(),
      })
      .strict()
      .superRefine(refuseNodeConfigKeys(2, { 3: NODE_CONFIG_KEYS_SINCE_VERSION_3 })),
    z
      .object({
        format_version: z.literal(3),
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

/** Before version 3 a quorum routed to a name ({"ensemble": name} is version 3's), and a member had no resume key. */
function refuseVersion3EnsembleForms(given: number) {
  return (ensemble: { on_pass_to?: EnsembleTarget; on_fail_to?: EnsembleTarget; members: object[] }, ctx: z.RefinementCtx): void => {
    for (const key of ['on_pass_to', 'on_fail_to'] as const) {
      const target = ensemble[key];
      if (target !== undefined && typeof target !== 'string')
        ctx.addIssue({ code: 'custom', path: [key], message: needsVersion(3, given, `the {"ensemble": …} form (give the name alone)`) });
    }
    ensemble.members.forEach((member, index) => {
      for (const key of MEMBER_KEYS_SINCE_VERSION_3.filter((name) => name in member))
        ctx.addIssue({ code: 'custom', path: ['members', index, key], message: needsVersion(3, given, key) });
    });
  };
}

/** Refuses each node config key a version after `given` added (key to the version that added it). */
function refuseNodeConfigKeys(given: number, keysSince: Readonly<Record<number, readonly string[]>>) {
  return (document: { nodes: ExportNode[] }, ctx: z.RefinementCtx): void => {
    document.nodes.forEach((node, index) => {
      for (const [needed, keys] of Object.entries(keysSince))
        for (const key of keys.filter((name) => name in node.config))
          ctx.addIssue({ code: 'custom', path: ['nodes', index, 'config', key], message: needsVersion(Number(needed), given, key) });
    });
  };
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
