// Blueprints: named node templates, custom ones and the seeded builtins.
import type { Blueprint } from '../domain';
import { BUILTIN_BLUEPRINTS } from './builtin-blueprints';
import { fromFlag, fromJson, toFlag, toJson } from './columns';
import type { BlueprintRow, DatabaseOrTransaction, NewBlueprintRow } from './database';

/** Builtins first, then by name. */
export async function listBlueprints(db: DatabaseOrTransaction): Promise<Blueprint[]> {
  const rows = await db.selectFrom('blueprints').selectAll().orderBy('builtin', 'desc').orderBy('name').execute();
  return rows.map(blueprintFromRow);
}

export async function getBlueprint(db: DatabaseOrTransaction, name: string): Promise<Blueprint | undefined> {
  const row = await db.selectFrom('blueprints').selectAll().where('name', '=', name).executeTakeFirst();
  return row && blueprintFromRow(row);
}

export async function insertBlueprint(db: DatabaseOrTransaction, blueprint: Blueprint): Promise<Blueprint> {
  const row = await db.insertInto('blueprints').values(blueprintToRow(blueprint)).returningAll().executeTakeFirstOrThrow();
  return blueprintFromRow(row);
}

/** Deletes any blueprint, builtins included: refusing to delete a builtin is the caller's rule. */
export async function deleteBlueprint(db: DatabaseOrTransaction, name: string): Promise<boolean> {
  const result = await db.deleteFrom('blueprints').where('name', '=', name).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Inserts each builtin whose name is free, so a builtin deleted from the database comes back and
 * a custom blueprint that took a builtin's name is left alone. Safe when several processes start
 * at once. Returns the names it inserted.
 */
export async function seedBuiltinBlueprints(db: DatabaseOrTransaction): Promise<string[]> {
  const rows = await db
    .insertInto('blueprints')
    .values(BUILTIN_BLUEPRINTS.map((blueprint) => blueprintToRow({ ...blueprint, builtin: true })))
    .onConflict((conflict) => conflict.column('name').doNothing())
    .returning('name')
    .execute();
  return rows.map((row) => row.name);
}

function blueprintFromRow(row: BlueprintRow): Blueprint {
  return { name: row.name, kind: row.kind, config: fromJson(row.config), builtin: fromFlag(row.builtin) };
}

function blueprintToRow(blueprint: Blueprint): NewBlueprintRow {
  return { name: blueprint.name, kind: blueprint.kind, config: toJson(blueprint.config), builtin: toFlag(blueprint.builtin) };
}
