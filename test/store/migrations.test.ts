// Migrations that move data: a store written by an older canopy opens with its data in the new shape, on both dialects.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Kysely, Migrator, sql } from 'kysely';
import { getLoop, getNodeRun, openDatabase, type StoreOptions } from '../../src/store';
import { postgresDialect, sqliteDialect } from '../../src/store/dialects';
import { MIGRATIONS } from '../../src/store/migrations';
import { postgres, sqlite } from '../helpers/store-dialects';

for (const dialect of [sqlite, postgres]) {
  describe(`store migrations [${dialect.name}]`, async () => {
    const reason = await dialect.unavailable();

    it('010_loop_hooks makes each loop’s on_completed hook the first of its on_completed list', { skip: reason }, async () => {
      const scratch = await dialect.scratchStore();
      try {
        const old = await storeAt(scratch.options, '008_spec_failure_counts');
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

    it(
      '012_node_run_activity_attempts numbers each run as the workflow does and moves the activity attempts aside',
      { skip: reason },
      async () => {
        const scratch = await dialect.scratchStore();
        try {
          const old = await storeAt(scratch.options, '011_sandboxes');
          await old
            .insertInto('loops')
            .values({ id: 'loop_1', name: 'l', workdir: '/w', description: '', settings: '{}', created_at: 't', updated_at: 't' })
            .execute();
          const dead = {
            infra_attempt: 1,
            status: 'running',
            stdout: 'o',
            stderr: '',
            exit_code: null,
            reported_status: null,
            reported_output: null,
          };
          const row = { loop_id: 'loop_1', node_name: 'n', kind: 'check', round: 1, started_at: 't', attempts: '[]' };
          await old
            .insertInto('node_runs')
            .values([
              { ...row, id: 'nrun_plain', run_key: 'wf:spec:n:1', infra_attempt: 1 },
              { ...row, id: 'nrun_adopted', run_key: 'wf:spec:n:2', infra_attempt: 2, attempts: JSON.stringify([dead]) },
              { ...row, id: 'nrun_retried', run_key: 'wf:spec:n:2:infra-3', infra_attempt: 1 },
            ])
            .execute();
          await old.destroy();

          const db = await openDatabase(scratch.options);
          try {
            const attemptsOf = async (id: string) => {
              const run = (await getNodeRun(db, id))!;
              return [run.infra_attempt, run.activity_attempt, run.attempts.map((a) => [a.infra_attempt, a.activity_attempt])];
            };
            assert.deepEqual(await attemptsOf('nrun_plain'), [1, 1, []]);
            assert.deepEqual(await attemptsOf('nrun_adopted'), [1, 2, [[1, 1]]]);
            assert.deepEqual(await attemptsOf('nrun_retried'), [3, 1, []]);
          } finally {
            await db.destroy();
          }
        } finally {
          await scratch.dispose();
        }
      },
    );
  });
}

/** The store migrated up to `migration` only, as an older canopy left it. */
async function storeAt({ url, home }: StoreOptions, migration: string): Promise<Kysely<any>> {
  const old = new Kysely<any>({ dialect: url ? postgresDialect(url) : sqliteDialect(path.join(home, 'canopy.db')) });
  const schema = url ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(old)).rows[0].schema : undefined;
  const migrator = new Migrator({ db: old, provider: { getMigrations: () => Promise.resolve(MIGRATIONS) }, migrationTableSchema: schema });
  assert.equal((await migrator.migrateTo(migration)).error, undefined);
  return old;
}
