// Specs: units of work bound to a loop or kept in the standalone backlog (optionally tagged with a workdir).
import path from 'node:path';
import { z } from 'zod';
import { Id } from '../domain/common';
import { notFound, parseOrThrow } from '../domain/errors';
import { SpecCreateInput, SpecStatus, SpecUpdateInput } from '../domain/spec';
import {
  deleteSpec as deleteSpecRow,
  getSpec,
  insertSpec,
  listSpecs as listSpecRows,
  updateSpec as updateSpecRow,
  type StoredSpec,
} from '../store/specs-repository';
import type { ClientContext } from './context';
import { requireLoop } from './design-service';

export const ListSpecsRequest = z
  .object({
    loop_id: Id.optional().describe('Only specs bound to this loop'),
    workdir: z.string().min(1).optional().describe('Only specs tagged with this workdir'),
    backlog: z.boolean().optional().describe('Only backlog specs (bound to no loop)'),
    status: SpecStatus.optional(),
  })
  .strict();

export const UpdateSpecRequest = z.object({ spec_id: Id, ...SpecUpdateInput.shape }).strict();

export const DeleteSpecRequest = z.object({ spec_id: Id }).strict();

const FIND_SPECS_HINT = 'List specs with `canopy spec list` (MCP: spec_list).';

/** Adds the spec at the end of its loop's list, or of the backlog when no loop is given. */
export async function createSpec(ctx: ClientContext, request: unknown): Promise<StoredSpec> {
  const input = parseOrThrow(SpecCreateInput, request, 'The spec');
  if (input.loop_id !== null) await requireLoop(ctx.db, input.loop_id);
  return insertSpec(ctx.db, { ...input, workdir: absolute(input.workdir) });
}

/** In list order; filters combine. */
export async function listSpecs(ctx: ClientContext, request: unknown = {}): Promise<StoredSpec[]> {
  const filter = parseOrThrow(ListSpecsRequest, request, 'The filter');
  return listSpecRows(ctx.db, {
    loopId: filter.loop_id,
    workdir: absolute(filter.workdir),
    backlogOnly: filter.backlog,
    status: filter.status,
  });
}

/** loop_id null moves the spec to the backlog; a spec moved to another list goes to its end. */
export async function updateSpec(ctx: ClientContext, request: unknown): Promise<StoredSpec> {
  const { spec_id, ...changes } = parseOrThrow(UpdateSpecRequest, request, 'The spec');
  await requireSpec(ctx, spec_id);
  if (changes.loop_id) await requireLoop(ctx.db, changes.loop_id);
  return (await updateSpecRow(ctx.db, spec_id, { ...changes, workdir: absolute(changes.workdir) }))!;
}

/** Deletes the spec; queues holding it drop it. */
export async function deleteSpec(ctx: ClientContext, request: unknown): Promise<{ spec_id: string; deleted: true }> {
  const { spec_id } = parseOrThrow(DeleteSpecRequest, request, 'The request');
  if (!(await deleteSpecRow(ctx.db, spec_id))) throw notFound('spec', spec_id, FIND_SPECS_HINT);
  return { spec_id, deleted: true };
}

export async function requireSpec(ctx: ClientContext, specId: string): Promise<StoredSpec> {
  const spec = await getSpec(ctx.db, specId);
  if (!spec) throw notFound('spec', specId, FIND_SPECS_HINT);
  return spec;
}

/** Workdir tags are compared as absolute paths, as loops store theirs; null and undefined pass through. */
function absolute<T extends string | null | undefined>(workdir: T): T {
  return (typeof workdir === 'string' ? path.resolve(workdir) : workdir) as T;
}
