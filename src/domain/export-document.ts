// The loop export file (format_version 1): a shape and instructions, never ids, workdir, specs or state.
import { z } from 'zod';
import { EdgeType } from './edge';
import { EnsembleInput } from './ensemble';
import { LoopName, LoopSettings } from './loop';
import { NodeKind } from './node';

export const FORMAT_VERSION = 1;

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

export const ExportDocument = z
  .object({
    format_version: z.literal(FORMAT_VERSION, { error: `format_version must be ${FORMAT_VERSION}` }),
    name: LoopName,
    description: z.string().default(''),
    settings: LoopSettings.optional(),
    nodes: z.array(ExportNode),
    edges: z.array(ExportEdge),
    ensembles: z.array(EnsembleInput).default([]),
  })
  .strict();
export type ExportDocument = z.infer<typeof ExportDocument>;
