// Fixtures of service and CLI tests: a client context on a fresh SQLite store in a temp canopy
// home (one per test), and checking that a refusal names its field.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'node:test';
import { sql } from 'kysely';
import { openContext, type ClientContext } from '../../src/client/context';
import { loadConfig } from '../../src/config';
import { CanopyError, type ErrorCode } from '../../src/domain/errors';
import { PROJECT_ROOT } from '../../src/project';

/** The seed's complete export example, kept verbatim. */
export const SEED_EXAMPLE_PATH = path.join(PROJECT_ROOT, 'test', 'fixtures', 'implement-and-review.json');

/** A document as export writes it: each ensemble's older entry_from_node (with entry_condition) as a list of one entry. */
export function withEntryLists(document: Record<string, any>): Record<string, any> {
  const ensembles = (document.ensembles as Record<string, any>[]).map(({ entry_from_node, entry_condition, ...unit }) =>
    entry_from_node === undefined ? unit : { ...unit, entry_from: [{ node: entry_from_node, condition: entry_condition ?? 'always' }] },
  );
  return { ...document, ensembles };
}

export interface TestStore {
  readonly ctx: ClientContext;
  /** The canopy home the store lives in. */
  readonly home: string;
  /** An existing directory in the home, for a loop to work in. */
  workdir(name?: string): string;
}

/** Opens a fresh store before each test of the calling suite and removes it after. */
export function useTestStore(): TestStore {
  let current: { ctx: ClientContext; home: string } | undefined;
  beforeEach(async () => {
    const home = tempDir('canopy-client-home-');
    current = { ctx: await openContext(loadConfig({ CANOPY_HOME: home })), home };
  });
  afterEach(async () => {
    await current?.ctx.close();
    if (current) rmSync(current.home, { recursive: true, force: true });
    current = undefined;
  });
  const opened = () => {
    if (!current) throw new Error('the store opens before each test');
    return current;
  };
  return {
    get ctx() {
      return opened().ctx;
    },
    get home() {
      return opened().home;
    },
    workdir: (name) => directoryIn(opened().home, name),
  };
}

/** `<parent>/<name>`, created if missing: loops may only work in directories that exist. */
export function directoryIn(parent: string, name = 'project'): string {
  const dir = path.join(parent, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function tempDir(prefix = 'canopy-client-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface ExpectedRefusal {
  code: ErrorCode;
  /** An issue must name this field… */
  field?: string;
  /** …and its message (or the error's, without a field) must match this. */
  message?: RegExp;
}

export async function assertRefused(work: Promise<unknown>, expected: ExpectedRefusal): Promise<CanopyError> {
  const error: unknown = await work.then(
    () => assert.fail('expected a refusal, but the call succeeded'),
    (rejection: unknown) => rejection,
  );
  assert.ok(error instanceof CanopyError, `expected a CanopyError, got ${String(error)}`);
  assert.equal(error.code, expected.code, error.message);
  if (expected.field !== undefined) {
    const named = error.issues.some(
      (issue) => issue.field === expected.field && (!expected.message || expected.message.test(issue.message)),
    );
    assert.ok(named, `no issue on '${expected.field}'${expected.message ? ` matching ${expected.message}` : ''} in:\n${error.message}`);
  } else if (expected.message) {
    assert.match(error.message, expected.message);
  }
  return error;
}

/** Every row of every table of a SQLite store, to show that a refused call changed nothing. */
export async function storeSnapshot(ctx: ClientContext): Promise<Record<string, unknown[]>> {
  const tables = await sql<{ name: string }>`select name from sqlite_master where type = 'table' order by name`.execute(ctx.db);
  const snapshot: Record<string, unknown[]> = {};
  for (const { name } of tables.rows) snapshot[name] = (await sql`select * from ${sql.table(name)} order by rowid`.execute(ctx.db)).rows;
  return snapshot;
}

/** The call is refused as `expected` says, and the store is as it was before it. */
export async function assertRefusedUnchanged(
  ctx: ClientContext,
  work: () => Promise<unknown>,
  expected: ExpectedRefusal,
): Promise<CanopyError> {
  const before = await storeSnapshot(ctx);
  const error = await assertRefused(work(), expected);
  assert.deepEqual(await storeSnapshot(ctx), before, `the refusal changed the store: ${error.message}`);
  return error;
}
