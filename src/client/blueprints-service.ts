// Node blueprints: listing them, creating custom ones (config checked against the kind's schema),
// deleting custom ones, and looking one up for loop_add_node.
import { z } from 'zod';
import { BlueprintInput, type Blueprint } from '../domain/blueprint';
import { CanopyError, invalidInput, notFound, parseOrThrow } from '../domain/errors';
import {
  deleteBlueprint as deleteBlueprintRow,
  getBlueprint,
  insertBlueprint,
  listBlueprints as listBlueprintRows,
  seedBuiltinBlueprints,
} from '../store/blueprints-repository';
import { BUILTIN_BLUEPRINTS } from '../store/builtin-blueprints';
import type { DatabaseOrTransaction } from '../store/database';
import type { ClientContext } from './context';
import { issuesUnder, requireValidDesign } from './design-service';

const BUILTIN_NAMES = BUILTIN_BLUEPRINTS.map((blueprint) => blueprint.name);

export const DeleteBlueprintRequest = z.object({ name: z.string().min(1).describe('Name of the custom blueprint to delete') }).strict();

/** Builtins first, then custom ones by name. */
export async function listBlueprints(ctx: ClientContext): Promise<Blueprint[]> {
  return availableBlueprints(ctx.db);
}

export async function createBlueprint(ctx: ClientContext, request: unknown): Promise<Blueprint> {
  const input = parseOrThrow(BlueprintInput, request, 'The blueprint');
  if (BUILTIN_NAMES.includes(input.name)) {
    throw new CanopyError('conflict', `'${input.name}' is the name of a builtin blueprint; choose another name.`);
  }
  requireValidConfig(input);
  if (await getBlueprint(ctx.db, input.name)) {
    throw new CanopyError('conflict', `A blueprint named '${input.name}' already exists; delete it first or choose another name.`);
  }
  return insertBlueprint(ctx.db, { ...input, builtin: false });
}

export async function deleteBlueprint(ctx: ClientContext, request: unknown): Promise<{ name: string; deleted: true }> {
  const { name } = parseOrThrow(DeleteBlueprintRequest, request, 'The request');
  if (BUILTIN_NAMES.includes(name)) throw new CanopyError('refused', `'${name}' is builtin: builtin blueprints cannot be deleted.`);
  if (!(await deleteBlueprintRow(ctx.db, name))) throw notFound('blueprint', name, 'List blueprints with `canopy blueprint list`.');
  return { name, deleted: true };
}

/** The named blueprint, or an error listing every blueprint there is. */
export async function requireBlueprint(db: DatabaseOrTransaction, name: string): Promise<Blueprint> {
  const blueprints = await availableBlueprints(db);
  const blueprint = blueprints.find((candidate) => candidate.name === name);
  if (blueprint) return blueprint;
  throw invalidInput('The node', [
    { field: 'blueprint', message: `no blueprint is named '${name}'; available blueprints: ${blueprints.map((b) => b.name).join(', ')}` },
  ]);
}

/** The daemon seeds the builtins at start-up; seeding here too keeps them available to a CLI used before any daemon ran. */
async function availableBlueprints(db: DatabaseOrTransaction): Promise<Blueprint[]> {
  await seedBuiltinBlueprints(db);
  return listBlueprintRows(db);
}

/** A blueprint's config must make a valid lone node of its kind, placeholders included. */
function requireValidConfig(input: BlueprintInput): void {
  const lone = { name: input.name, kind: input.kind, position: 1, config: input.config };
  requireValidDesign({ nodes: [lone], edges: [], ensembles: [] }, 'The blueprint', issuesUnder('nodes[0]', 'blueprint'));
}
