// How the store connects: one SQLite file shared by several processes, or a PostgreSQL pool.
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { Pool, PoolClient } from 'pg';
import {
  CompiledQuery,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Dialect,
  type PostgresPool,
  type PostgresPoolClient,
  type QueryResult,
} from 'kysely';
import { ensurePrivateDirectory, ensurePrivateFile, narrowIfExists } from '../private-files';

/** How long one statement waits for another process's write, blocking its whole process (better-sqlite3 is synchronous). */
const SQLITE_BUSY_TIMEOUT_MS = 5000;
/** How long a statement keeps trying, between those waits, before the store is taken to be stuck. */
const SQLITE_BUSY_PATIENCE_MS = 120_000;
const BUSY_PAUSE_MS = { first: 20, longest: 1000 };

/**
 * better-sqlite3's addon where its install builds it, named to the driver: left to find it, the
 * driver asks the `bindings` package, which probes a dozen paths and costs every CLI read a few ms.
 */
function sqliteAddon(): { nativeBinding?: string } {
  try {
    return { nativeBinding: require.resolve('better-sqlite3/build/Release/better_sqlite3.node') };
  } catch {
    return {};
  }
}

/** SQLite on `file` (its directory is created), set up for the worker, CLI and MCP processes that share it. */
export function sqliteDialect(file: string): Dialect {
  ensurePrivateDirectory(path.dirname(file));
  // SQLite gives the -wal and -shm files it creates the database file's mode, so an owner-only
  // file made before SQLite opens it keeps all three private; older, wider ones are narrowed.
  ensurePrivateFile(file);
  for (const companion of [`${file}-wal`, `${file}-shm`]) narrowIfExists(companion);
  const database = new SqliteDatabase(file, sqliteAddon());
  // The busy timeout makes a writer wait for another process's write instead of failing at once.
  database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  return new SharedFileSqliteDialect(database, file);
}

/**
 * Run on the store's connection before its first statement, patiently: switching a new file to WAL
 * takes the whole file, which processes opening it at once (one of them already migrating) refuse.
 */
const SQLITE_SETUP = [
  // WAL lets readers run beside the one writer.
  'pragma journal_mode = WAL',
  // In WAL mode NORMAL still survives a killed process (the failure canopy is built for); only a
  // power cut can lose the last commits, and it saves an fsync on every write of every node step.
  'pragma synchronous = NORMAL',
  'pragma foreign_keys = ON',
];

export function postgresDialect(url: string): Dialect {
  // Loaded here, not at the top: SQLite users (every CLI read by default) never pay for the driver.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Pool } = require('pg') as typeof import('pg');
  const pool = new Pool({ connectionString: url });
  // An idle client whose connection dies (a server restart) is dropped by the pool and the next
  // query reconnects; without a listener the 'error' event would crash the process.
  pool.on('error', () => {});
  return new PostgresDialect({ pool: nulSafe(pool) });
}

/**
 * PostgreSQL's text holds no NUL byte, which process output may: every string sent is escaped and
 * every string read back unescaped, so the store keeps such output whole, as SQLite does. A NUL
 * becomes U+FDD0 followed by '0', and U+FDD0 itself is doubled. U+FDD0 is a noncharacter, which no
 * text carries, so values stored before read back as they were, and nothing else is changed.
 */
function nulSafe(pool: Pool): PostgresPool {
  // Kysely keeps one connection per client the pool hands out, so each client keeps one wrapper.
  const wrappers = new WeakMap<PoolClient, PostgresPoolClient>();
  // Only the query form: the cursor form streams, which this store never configures.
  const wrap = (client: PoolClient): PostgresPoolClient => ({
    query: (async (sql: string, parameters: readonly unknown[]) => {
      const result = await client.query(
        sql,
        parameters.map((value) => (typeof value === 'string' ? escapeNul(value) : value)),
      );
      return { ...result, rows: result.rows.map(unescapeRow) };
    }) as unknown as PostgresPoolClient['query'],
    release: (destroy?: boolean) => client.release(destroy),
  });
  return {
    async connect() {
      const client = await pool.connect();
      const wrapper = wrappers.get(client) ?? wrap(client);
      wrappers.set(client, wrapper);
      return wrapper;
    },
    end: () => pool.end(),
  };
}

const ESCAPE = '\uFDD0';
const ESCAPED_AS = new Map([
  ['\0', `${ESCAPE}0`],
  [ESCAPE, `${ESCAPE}${ESCAPE}`],
]);
const UNESCAPED_AS = new Map([...ESCAPED_AS].map(([plain, escaped]) => [escaped, plain]));

function escapeNul(text: string): string {
  return /[\0\uFDD0]/.test(text) ? text.replace(/[\0\uFDD0]/g, (char) => ESCAPED_AS.get(char)!) : text;
}

function unescapeNul(text: string): string {
  return text.includes(ESCAPE) ? text.replace(/\uFDD0[0\uFDD0]/g, (pair) => UNESCAPED_AS.get(pair)!) : text;
}

function unescapeRow(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([column, value]) => [column, typeof value === 'string' ? unescapeNul(value) : value]));
}

/**
 * Kysely's SQLite dialect assumes one process owns the file. Three changes make it safe to share:
 * transactions take the write lock when they begin, a statement kept out by another process's
 * write waits its turn, and migrations run inside a transaction.
 */
class SharedFileSqliteDialect extends SqliteDialect {
  constructor(
    private readonly database: SqliteDatabase.Database,
    private readonly file: string,
  ) {
    super({ database });
  }

  override createDriver(): SqliteDriver {
    return new SharedFileSqliteDriver({ database: this.database }, this.file);
  }

  override createAdapter(): SqliteAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

class SharedFileSqliteDriver extends SqliteDriver {
  private patient: PatientSqliteConnection | undefined;

  constructor(
    config: ConstructorParameters<typeof SqliteDriver>[0],
    private readonly file: string,
  ) {
    super(config);
  }

  override async init(): Promise<void> {
    await super.init();
    const connection = await this.acquireConnection();
    try {
      for (const statement of SQLITE_SETUP) await connection.executeQuery(CompiledQuery.raw(statement));
    } finally {
      await this.releaseConnection();
    }
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    // One connection, which Kysely hands to one user at a time: one wrapper keeps its transaction state.
    const connection = await super.acquireConnection();
    this.patient ??= new PatientSqliteConnection(connection, this.file);
    return this.patient;
  }

  // A deferred transaction that reads and then writes fails at once (SQLITE_BUSY) when another
  // process wrote in between; taking the lock up front waits its turn instead.
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    (connection as PatientSqliteConnection).inTransaction = true;
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await super.commitTransaction(connection);
    (connection as PatientSqliteConnection).inTransaction = false;
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } finally {
      (connection as PatientSqliteConnection).inTransaction = false;
    }
  }
}

/**
 * Waits out SQLITE_BUSY, as many processes starting at once meet it: SQLite's busy timeout waits
 * synchronously, freezing the process (a worker's heartbeats, an MCP server's answers), so it stays
 * a few seconds and the statement is tried again after a pause that lets the event loop run, for
 * as long as the patience lasts. Only a statement outside a transaction, or the `begin` of one, is
 * tried again: it changed nothing when it was refused. Inside a transaction this process holds the
 * write lock, so no other writer can refuse it.
 */
class PatientSqliteConnection implements DatabaseConnection {
  inTransaction = false;

  constructor(
    private readonly connection: DatabaseConnection,
    private readonly file: string,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.inTransaction) return this.connection.executeQuery<R>(query);
    const deadline = Date.now() + SQLITE_BUSY_PATIENCE_MS;
    for (let pause = BUSY_PAUSE_MS.first; ; pause = Math.min(pause * 2, BUSY_PAUSE_MS.longest)) {
      try {
        return await this.connection.executeQuery<R>(query);
      } catch (error) {
        if (!isBusy(error)) throw error;
        if (Date.now() >= deadline) {
          throw new Error(
            `The store ${this.file} stayed locked by another process's write for ${SQLITE_BUSY_PATIENCE_MS / 1000} s (${(error as Error).message}); ` +
              `find the process holding it with \`fuser ${this.file}\`, then try again.`,
            { cause: error },
          );
        }
      }
      // Jittered, so processes refused together do not all try again at the same moment.
      await new Promise((resolve) => setTimeout(resolve, pause * (0.5 + Math.random())));
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.connection.streamQuery<R>(query, chunkSize);
  }
}

function isBusy(error: unknown): boolean {
  return error instanceof SqliteDatabase.SqliteError && error.code.startsWith('SQLITE_BUSY');
}

class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  // SQLite runs DDL in transactions. Kysely's adapter says otherwise, so its Migrator would run
  // migrations bare and unlocked: two processes opening a new file at once would both create the
  // tables, and a crash midway would leave half a schema.
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}
