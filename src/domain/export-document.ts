// The loop export file: a shape and instructions, never ids, workdir, specs or state. Export writes
// the newest format_version; import reads every version, each meaning what it meant when written.
import { z } from 'zod';
import { EdgeType } from './edge';
import { EnsembleInput } from './ensemble';
import { LoopName, LoopSettings } from './loop';
import { NodeKind } from './node';

/** The version export writes. */
export const FORMAT_VERSION = 2;

/**
 * The keys each version added, by where they sit in the file. A key joins the newest version here
 * (and its schema below); a file of an earlier version that carries it is refused, naming the version it needs.
 */
const KEYS_ADDED_IN: Readonly<Record<number, { ensembles: readonly string[] }>> = {
  2: { ensembles: ['quorum_grace_minutes'] },
};

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

const FormatVersion = z
  .number({ error: `format_version must be one of ${SUPPORTED_VERSIONS.join(', ')}` })
  .refine((version) => SUPPORTED_VERSIONS.includes(version), {
    message: `format_version must be one of ${SUPPORTED_VERSIONS.join(', ')}; a newer file needs a newer canopy`,
  });

export const ExportDocument = z
  .object({
    format_version: FormatVersion,
    name: LoopName,
    description: z.string().default(''),
    settings: LoopSettings.optional(),
    nodes: z.array(ExportNode),
    edges: z.array(ExportEdge),
    ensembles: z.array(EnsembleInput).default([]),
  })
  .strict()
  .superRefine((document, ctx) => {
    for (const [version, added] of Object.entries(KEYS_ADDED_IN)) {
      if (document.format_version >= Number(version)) continue;
      document.ensembles.forEach((ensemble, index) => {
        for (const key of added.ensembles.filter((name) => name in ensemble)) {
          ctx.addIssue({
            code: 'custom',
            path: ['ensembles', index, key],
            message: `needs format_version ${version} (this file says ${document.format_version}); set format_version to ${version} or remove ${key}`,
          });
        }
      });
    }
  });
export type ExportDocument = z.infer<typeof ExportDocument>;
