// Migrations that move data: a store written by an older canopy opens with its data in the new shape, on both dialects.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Kysely, Migrator, sql } from 'kysely';
import { getLoop, openDatabase } from '../../src/store';
import { postgresDialect, sqliteDialect } from '../../src/store/dialects';
import { MIGRATIONS } from '../../src/store/migrations';
import { postgres, sqlite } from '../helpers/store-dialects';

for (const dialect of [sqlite, postgres]) {
  describe(`store migrations [${dialect.name}]`, async () => {
    const reason = await dialect.unavailable();

    it('010_loop_hooks makes each loop’s on_completed hook the first of its on_completed list', { skip: reason }, async () => {
      const scratch = await dialect.scratchStore();
      try {
        const { url, home } = scratch.options;
        // The schema as it was before the migration.
        const old = new Kysely<any>({ dialect: url ? postgresDialect(url) : sqliteDialect(path.join(home, 'canopy.db')) });
        const schema = url ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(old)).rows[0].schema : undefined;
        const migrator = new Migrator({
          db: old,
          provider: { getMigrations: () => Promise.resolve(MIGRATIONS) },
          migrationTableSchema: schema,
        });
        assert.equal((await migrator.migrateTo('008_spec_failure_counts')).error, undefined);
        const hook = { platform: 'claude', model: 'opus', prompt: 'Summarise {{completed_specs}}', timeout_minutes: 5 };
        const row = { workdir: '/w', description: '', settings: '{}', created_at: 't', updated_at: 't' };
        await old
          .insertInto('loops')
          .values([
            { ...row, id: 'loop_hooked', name: 'hooked', on_completed: JSON.stringify(hook) },
            { ...row, id: 'loop_plain', name: 'plain', on_completed: null },
          ])
          .execute();
        await old.destroy();

        const db = await openDatabase(scratch.options);
        try {
          assert.deepEqual((await getLoop(db, 'loop_hooked'))?.hooks, { on_completed: [hook] });
          assert.deepEqual((await getLoop(db, 'loop_plain'))?.hooks, {});
        } finally {
          await db.destroy();
        }
      } finally {
        await scratch.dispose();
      }
    });
  });
}
