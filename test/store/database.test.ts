// Opening the store: migrations, SQLite settings, referential integrity and transactions, on both dialects.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { Client } from 'pg';
import { MIGRATION_NAMES } from '../../src/store/migrations';
import {
  getGraph,
  getLoop,
  getSpec,
  insertLoopRun,
  insertNodeRun,
  insertSpec,
  isForeignKeyViolation,
  isUniqueViolation,
  listLoops,
  listNodeRuns,
  deleteLoop,
  latestLoopRun,
  openDatabase,
  replaceGraph,
  storeLocation,
  type StoreOptions,
} from '../../src/store';
import {
  describeOnEachDialect,
  insertTestLoop,
  makeTempDir,
  postgres,
  POSTGRES_TEST_URL,
  sqlite,
  type StoreUnderTest,
} from '../helpers/store-dialects';

const execFileAsync = promisify(execFile);
const STORE_MODULE = path.resolve(__dirname, '../../src/store');

describeOnEachDialect('openDatabase', (store) => {
  it('opens an existing store again without re-running migrations or losing data', async () => {
    const loop = await insertTestLoop(store.db);
    const again = await openDatabase(store.options);
    try {
      assert.deepEqual(await getLoop(again, loop.id), loop);
      const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(again);
      assert.deepEqual(
        rows,
        MIGRATION_NAMES.map((name) => ({ name })),
      );
    } finally {
      await again.destroy();
    }
  });

  it('opens an up-to-date store while another process holds the lock a migration takes, and waits for none', async () => {
    const holder = await holdMigrationLock(store);
    try {
      const opening = openDatabase(withApplicationName(store.options, OPENER));
      assert.equal(await holder.waitedFor(opening), false, 'opening the store waited for the lock');
      await (await opening).destroy();
    } finally {
      await holder.release();
    }
  });

  it('refuses a store a newer canopy migrated, naming the migration this one lacks', async () => {
    await sql`insert into kysely_migration (name, timestamp) values ('999_from_the_future', ${new Date().toISOString()})`.execute(store.db);
    await assert.rejects(openDatabase(store.options), /999_from_the_future.*missing/);
  });

  it('lets a second handle, as another process would, see what the first wrote', async () => {
    const other = await openDatabase(store.options);
    try {
      const loop = await insertTestLoop(other);
      assert.deepEqual(await getLoop(store.db, loop.id), loop);
    } finally {
      await other.destroy();
    }
  });

  it("deletes a loop's graph, node runs and loop runs with it and returns its specs to the backlog", async () => {
    const loop = await insertTestLoop(store.db);
    await replaceGraph(store.db, loop.id, {
      nodes: [
        {
          id: 'node_a',
          loop_id: loop.id,
          name: 'a',
          kind: 'check',
          position: 1,
          config: { command: 'true' },
          ensemble_id: null,
          member_index: null,
        },
        {
          id: 'node_b',
          loop_id: loop.id,
          name: 'b',
          kind: 'check',
          position: 2,
          config: { command: 'true' },
          ensemble_id: null,
          member_index: null,
        },
      ],
      edges: [{ id: 'edge_ab', loop_id: loop.id, source_id: 'node_a', target_id: 'node_b', condition: 'pass', type: 'flow' }],
      ensembles: [],
    });
    const spec = await insertSpec(store.db, { name: 's', content: '', loop_id: loop.id, workdir: null });
    await insertNodeRun(store.db, { loop_id: loop.id, node_id: 'node_a', node_name: 'a', kind: 'check', round: 1 });
    await insertLoopRun(store.db, { loop_id: loop.id, workflow_id: `loop-${loop.id}` });

    assert.equal(await deleteLoop(store.db, loop.id), true);

    assert.deepEqual(await getGraph(store.db, loop.id), { nodes: [], edges: [], ensembles: [] });
    assert.deepEqual(await store.db.selectFrom('edges').selectAll().execute(), []);
    assert.deepEqual(await listNodeRuns(store.db, { loopId: loop.id }), []);
    assert.equal(await latestLoopRun(store.db, loop.id), undefined);
    assert.equal((await getSpec(store.db, spec.id))?.loop_id, null);
  });

  it('writes nothing from a transaction that throws midway', async () => {
    await assert.rejects(
      store.db.transaction().execute(async (tx) => {
        const loop = await insertTestLoop(tx);
        await insertSpec(tx, { name: 's', content: '', loop_id: loop.id, workdir: null });
        throw new Error('interrupted');
      }),
      /interrupted/,
    );
    assert.deepEqual(await listLoops(store.db, { includeArchived: true }), []);
    assert.deepEqual(await store.db.selectFrom('specs').selectAll().execute(), []);
  });

  it('reports unique and foreign-key violations in a dialect-neutral way', async () => {
    await insertTestLoop(store.db, 'twin');
    const duplicate = await insertTestLoop(store.db, 'twin').catch((error: unknown) => error);
    assert.equal(isUniqueViolation(duplicate), true);
    assert.equal(isForeignKeyViolation(duplicate), false);

    const orphan = await insertSpec(store.db, { name: 's', content: '', loop_id: 'loop_missing', workdir: null }).catch(
      (error: unknown) => error,
    );
    assert.equal(isForeignKeyViolation(orphan), true);
    assert.equal(isUniqueViolation(orphan), false);
  });
});

describe('openDatabase on SQLite', () => {
  it('creates <home>/canopy.db in WAL mode with a busy timeout and foreign keys on', async () => {
    const home = path.join(await makeTempDir(), 'nested', 'home');
    const db = await openDatabase({ home });
    try {
      assert.equal(existsSync(path.join(home, 'canopy.db')), true);
      const pragma = async (name: string) => Object.values((await sql.raw<object>(`pragma ${name}`).execute(db)).rows[0])[0];
      assert.equal(await pragma('journal_mode'), 'wal');
      assert.equal(await pragma('busy_timeout'), 5000);
      assert.equal(await pragma('foreign_keys'), 1);
    } finally {
      await db.destroy();
      await rm(path.dirname(path.dirname(home)), { recursive: true, force: true });
    }
  });

  it('makes a write wait out another process’s write that outlasts the busy timeout, instead of failing', async () => {
    const home = await makeTempDir();
    const db = await openDatabase({ home });
    const other = new SqliteDatabase(path.join(home, 'canopy.db'));
    try {
      const busyTimeoutMs = Number(other.pragma('busy_timeout', { simple: true }));
      other.exec('begin immediate');
      const writing = insertTestLoop(db);
      // Released only after SQLite's own wait has given up on it.
      await new Promise((resolve) => setTimeout(resolve, busyTimeoutMs + 1000));
      other.exec('commit');
      assert.equal((await writing).name, 'test-loop');
    } finally {
      other.close();
      await db.destroy();
      await rm(home, { recursive: true, force: true });
    }
  });

  it('uses SQLite for any url that is not a postgres:// one', async () => {
    const home = await makeTempDir();
    const db = await openDatabase({ home, url: '' });
    await db.destroy();
    assert.equal(existsSync(path.join(home, 'canopy.db')), true);
    await rm(home, { recursive: true, force: true });
  });
});

for (const dialect of [sqlite, postgres]) {
  describe(`openDatabase from several processes [${dialect.name}]`, async () => {
    const reason = await dialect.unavailable();

    it('lets several processes open and migrate a new store at once', { skip: reason }, async () => {
      const scratch = await dialect.scratchStore();
      try {
        const script = `require(${JSON.stringify(STORE_MODULE)}).openDatabase(JSON.parse(process.argv[1])).then((db) => db.destroy())`;
        const processes = Array.from({ length: 8 }, () => execFileAsync(process.execPath, ['-e', script, JSON.stringify(scratch.options)]));
        await Promise.all(processes);
        const db = await openDatabase(scratch.options);
        const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
        assert.deepEqual(
          rows,
          MIGRATION_NAMES.map((name) => ({ name })),
        );
        await db.destroy();
      } finally {
        await scratch.dispose();
      }
    });
  });
}

describe('storeLocation', () => {
  it('names the SQLite file under home', () => {
    assert.equal(storeLocation({ home: '/home/me/.canopy' }), '/home/me/.canopy/canopy.db');
  });

  it('shows a PostgreSQL URL with its password masked', () => {
    assert.equal(
      storeLocation({ home: '/h', url: 'postgres://canopy:s3cret@db.example:5432/canopy' }),
      'postgres://canopy:***@db.example:5432/canopy',
    );
    assert.equal(storeLocation({ home: '/h', url: 'postgresql://canopy@db.example/canopy' }), 'postgresql://canopy@db.example/canopy');
  });
});

/** Kysely's migration lock on PostgreSQL: one advisory lock id for every schema of a database. */
const KYSELY_MIGRATION_LOCK_ID = '3853314791062309107';
/** How the opening connection names itself, so only its waits count (other test files migrate their own schemas meanwhile). */
const OPENER = 'canopy-store-opener';

function withApplicationName(options: StoreOptions, name: string): StoreOptions {
  return options.url ? { ...options, url: `${options.url}&application_name=${name}` } : options;
}

interface LockHolder {
  /** Whether `opening` waited for the lock before it settled. */
  waitedFor(opening: Promise<unknown>): Promise<boolean>;
  release(): Promise<void>;
}

/** Holds what migrating the store needs, as another process migrating it would: SQLite's write lock, PostgreSQL's advisory lock. */
async function holdMigrationLock(store: StoreUnderTest): Promise<LockHolder> {
  if (store.dialect === 'sqlite') {
    const other = new SqliteDatabase(path.join(store.options.home, 'canopy.db'));
    other.exec('begin immediate');
    return {
      // SQLite lists no waiters: an open that needs the lock settles only when it gives up waiting, refused.
      waitedFor: (opening) => opening.then(() => false),
      release: () => {
        other.close();
        return Promise.resolve();
      },
    };
  }
  const other = new Client({ connectionString: POSTGRES_TEST_URL });
  await other.connect();
  await other.query(`select pg_advisory_lock(${KYSELY_MIGRATION_LOCK_ID})`);
  return {
    async waitedFor(opening) {
      let settled = false;
      void opening.finally(() => (settled = true)).catch(() => {});
      while (!settled) {
        const { rows } = await other.query(
          `select 1 from pg_locks l join pg_stat_activity a on a.pid = l.pid where l.locktype = 'advisory' and not l.granted and a.application_name = $1`,
          [OPENER],
        );
        if (rows.length > 0) return true;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await opening;
      return false;
    },
    release: () => other.end(),
  };
}
