// Loops as records: unique names per workdir, lifecycle guards on delete and archive, and preflight.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { importLoop } from '../../src/client/export-import-service';
import { updateEnsemble, updateNode } from '../../src/client/graph-service';
import { archiveLoop, createLoop, deleteLoop, getLoop, listLoops, restoreLoop } from '../../src/client/loops-service';
import { preflight, type PreflightReport } from '../../src/client/preflight-service';
import { createSpec } from '../../src/client/specs-service';
import { setLoopStatus } from '../../src/store/loops-repository';
import { tempGitRepo } from '../helpers/git';
import { assertRefused, SEED_EXAMPLE_PATH, useTestStore } from '../helpers/store';

const store = useTestStore();
const workdir = (name?: string) => store.workdir(name);
const seedText = readFileSync(SEED_EXAMPLE_PATH, 'utf8');

describe('loops service', () => {
  it('creates a loop in an absolute workdir and refuses a second of the same name there', async () => {
    const loop = await createLoop(store.ctx, { name: 'build', workdir: workdir(), description: 'Builds' });
    assert.equal(loop.workdir, workdir());
    assert.equal(loop.status, 'pending');
    await assertRefused(createLoop(store.ctx, { name: 'build', workdir: workdir() }), {
      code: 'conflict',
      message: /'build' already exists/,
    });
    await createLoop(store.ctx, { name: 'build', workdir: workdir('other') });
    await assertRefused(createLoop(store.ctx, { name: '', workdir: workdir() }), { code: 'invalid_input', field: 'name' });
  });

  it('archives: refuses a running loop, hides an archived one from the list, still gets it by id, restores it', async () => {
    const loop = await createLoop(store.ctx, { name: 'archivable', workdir: workdir() });
    await setLoopStatus(store.ctx.db, loop.id, 'running');
    await assertRefused(archiveLoop(store.ctx, loop.id), { code: 'refused', message: /pause or stop it/ });
    assert.equal((await getLoop(store.ctx, loop.id)).archived, false);

    await setLoopStatus(store.ctx.db, loop.id, 'paused');
    await archiveLoop(store.ctx, loop.id);
    assert.deepEqual(await listLoops(store.ctx), []);
    assert.deepEqual(
      (await listLoops(store.ctx, { include_archived: true })).map((listed) => listed.id),
      [loop.id],
    );
    assert.equal((await getLoop(store.ctx, loop.id)).archived, true);

    await restoreLoop(store.ctx, loop.id);
    assert.deepEqual(
      (await listLoops(store.ctx)).map((listed) => listed.id),
      [loop.id],
    );
  });

  it('refuses to delete a loop whose run is still open, and deletes it otherwise', async () => {
    const loop = await createLoop(store.ctx, { name: 'doomed', workdir: workdir() });
    for (const status of ['running', 'paused', 'blocked'] as const) {
      await setLoopStatus(store.ctx.db, loop.id, status);
      await assertRefused(deleteLoop(store.ctx, loop.id), { code: 'refused', message: /stop it with `canopy loop stop/ });
    }
    await setLoopStatus(store.ctx.db, loop.id, 'failed');
    assert.deepEqual(await deleteLoop(store.ctx, loop.id), { loop_id: loop.id, deleted: true });
    await assertRefused(getLoop(store.ctx, loop.id), { code: 'not_found', message: /canopy loop list/ });
  });
});

describe('preflight', () => {
  const check = (report: PreflightReport, name: string) => {
    const found = report.checks.find((candidate) => candidate.name === name);
    assert.ok(found, `no check '${name}' in ${JSON.stringify(report.checks)}`);
    return found;
  };

  it('fails a fresh import in a plain directory: no platforms, no git, no specs', async () => {
    const { loop_id } = await importLoop(store.ctx, seedText, { workdir: store.home });
    const report = await preflight(store.ctx, loop_id);
    assert.equal(report.ok, false);
    assert.equal(check(report, 'graph').ok, true);
    assert.match(check(report, 'platforms assigned').detail, /implementer, committer, reviewers\/member-1, reviewers\/member-2/);
    assert.equal(check(report, 'workdir').ok, true);
    assert.equal(check(report, 'git repository').ok, false);
    assert.equal(check(report, 'pending specs').ok, false);
  });

  it('passes once every agent has a platform whose binary exists, in a clean repository with a pending spec', async () => {
    const repo = tempGitRepo();
    try {
      writeFileSync(
        path.join(store.home, 'config.json'),
        JSON.stringify({ platforms: { local: { argv: [process.execPath, '{{prompt}}'] } } }),
      );
      const { loop_id } = await importLoop(store.ctx, seedText, { workdir: repo });
      const loop = await getLoop(store.ctx, loop_id);
      for (const node of loop.nodes.filter((candidate) => candidate.ensemble_id === null)) {
        await updateNode(store.ctx, { node_id: node.id, config: { ...node.config, platform: 'local' } });
      }
      await updateEnsemble(store.ctx, { loop_id, name: 'reviewers', members: [{ platform: 'local' }, { platform: 'missing-tool' }] });
      await createSpec(store.ctx, { loop_id, name: 'first' });

      const failing = await preflight(store.ctx, loop_id);
      assert.equal(failing.ok, false);
      assert.match(check(failing, 'platform missing-tool').detail, /not configured; known: .*local/);

      await updateEnsemble(store.ctx, { loop_id, name: 'reviewers', members: [{ platform: 'local' }, { platform: 'local' }] });
      const passing = await preflight(store.ctx, loop_id);
      assert.deepEqual(
        passing.checks.filter((candidate) => !candidate.ok),
        [],
      );
      assert.equal(passing.ok, true);
      assert.equal(check(passing, 'platform local').detail, process.execPath);

      writeFileSync(path.join(repo, 'stray.txt'), 'uncommitted');
      assert.equal(check(await preflight(store.ctx, loop_id), 'git clean').ok, false);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});
