// Blueprints: reusable {name, kind, config} templates for nodes.
import { z } from 'zod';
import { nameOf } from './common';
import { NodeKind } from './node';

export const BlueprintInput = z
  .object({
    name: nameOf(120).regex(/^[a-z0-9][a-z0-9_-]*$/i, 'use letters, digits, "_" and "-"'),
    kind: NodeKind.exclude(['quorum']),
    config: z.record(z.string(), z.unknown()),
  })
  .strict();
export type BlueprintInput = z.infer<typeof BlueprintInput>;

export const Blueprint = z.object({
  name: z.string(),
  kind: NodeKind,
  config: z.record(z.string(), z.unknown()),
  builtin: z.boolean(),
});
export type Blueprint = z.infer<typeof Blueprint>;
