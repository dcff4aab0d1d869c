// Shared fixtures of the store tests: each suite runs once per dialect, on a fresh store per test
// (SQLite in a temp directory; PostgreSQL in a fresh schema of the test database, when it answers).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { Client } from 'pg';
import { insertLoop, openDatabase, type Database, type StoreOptions } from '../../src/store';
import type { Loop } from '../../src/domain';

export const POSTGRES_TEST_URL = process.env.CANOPY_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export type DialectName = 'sqlite' | 'postgres';

/** The store a test works on; `db` is replaced before each test. */
export interface StoreUnderTest {
  readonly dialect: DialectName;
  readonly db: Kysely<Database>;
  /** Options that open this same store again, as a second process would. */
  readonly options: StoreOptions;
}

export interface ScratchStore {
  options: StoreOptions;
  dispose(): Promise<void>;
}

export interface DialectFixture {
  name: DialectName;
  /** Why this dialect cannot run here, or undefined when it can. */
  unavailable(): Promise<string | undefined>;
  scratchStore(): Promise<ScratchStore>;
}

export const sqlite: DialectFixture = {
  name: 'sqlite',
  unavailable: () => Promise.resolve(undefined),
  async scratchStore() {
    const home = await makeTempDir();
    return { options: { home }, dispose: () => rm(home, { recursive: true, force: true }) };
  },
};

const TEST_SCHEMA_PREFIX = 'canopy_test_';

/** Drops every schema the store tests made; nothing when PostgreSQL does not answer. */
export async function dropTestSchemas(): Promise<void> {
  await withPostgres(async (client) => {
    const { rows } = await client.query<{ name: string }>('select nspname as name from pg_namespace where starts_with(nspname, $1)', [
      TEST_SCHEMA_PREFIX,
    ]);
    for (const { name } of rows) await client.query(`drop schema ${name} cascade`);
  }).catch(() => undefined);
}

let postgresProbe: Promise<string | undefined> | undefined;

export const postgres: DialectFixture = {
  name: 'postgres',
  unavailable() {
    postgresProbe ??= withPostgres(() => Promise.resolve(undefined)).catch(
      (error: Error) =>
        `PostgreSQL is not reachable at ${POSTGRES_TEST_URL} (${error.message}); start it to run the PostgreSQL store tests`,
    );
    return postgresProbe;
  },
  /**
   * A schema of its own, left in place when the test ends: Kysely's migrator reads the catalog of
   * every schema, and one dropped under it by a test file running beside it fails that read.
   * `npm test` drops them all before and after the run (dropTestSchemas).
   */
  async scratchStore() {
    const schema = `${TEST_SCHEMA_PREFIX}${randomBytes(6).toString('hex')}`;
    await withPostgres((client) => client.query(`create schema ${schema}`));
    const home = await makeTempDir();
    const url = `${POSTGRES_TEST_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    return {
      options: { url, home },
      dispose: () => rm(home, { recursive: true, force: true }),
    };
  },
};

/** Defines the suite once per dialect; each test gets a freshly opened, migrated, empty store. */
export function describeOnEachDialect(title: string, defineTests: (store: StoreUnderTest) => void): void {
  for (const dialect of [sqlite, postgres]) {
    describe(`${title} [${dialect.name}]`, async () => {
      const reason = await dialect.unavailable();
      if (reason) {
        it(`runs on ${dialect.name}`, { skip: reason }, () => {});
        return;
      }
      let scratch: ScratchStore | undefined;
      let db: Kysely<Database> | undefined;
      beforeEach(async () => {
        scratch = await dialect.scratchStore();
        db = await openDatabase(scratch.options);
      });
      afterEach(async () => {
        await db?.destroy();
        await scratch?.dispose();
      });
      defineTests({
        dialect: dialect.name,
        get db() {
          if (!db) throw new Error('the store opens before each test');
          return db;
        },
        get options() {
          if (!scratch) throw new Error('the store opens before each test');
          return scratch.options;
        },
      });
    });
  }
}

export function makeTempDir(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'canopy-store-test-'));
}

export function insertTestLoop(db: Kysely<Database>, name = 'test-loop', workdir = '/work/project'): Promise<Loop> {
  return insertLoop(db, { name, workdir, description: '', settings: {} });
}

async function withPostgres<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: POSTGRES_TEST_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
