// Hosts as records: the host id a machine goes by (CANOPY_HOST_ID, else its hostname), the host a
// loop records at create and import and that `loop update --host` moves, and every refusal of a bad one.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { describe, it } from 'node:test';
import { openContext } from '../../src/client/context';
import { exportLoop, importLoop } from '../../src/client/export-import-service';
import { createLoop, getLoop, updateLoop } from '../../src/client/loops-service';
import { loadConfig } from '../../src/config';
import { CanopyError } from '../../src/domain/errors';
import { canopySync, homeOnlyEnv } from '../helpers/processes';
import { assertRefusedUnchanged, SEED_EXAMPLE_PATH, tempDir, useTestStore } from '../helpers/store';

const BAD_HOST_IDS = ['', 'two words', 'a/b', 'host:1', 'tab\there', 'é', 'x'.repeat(254)];

describe('the host id of a machine', () => {
  it('is CANOPY_HOST_ID when given, else the hostname', () => {
    assert.equal(loadConfig({ CANOPY_HOME: '/tmp/h', CANOPY_HOST_ID: 'build-1.example_A' }).hostId, 'build-1.example_A');
    assert.equal(loadConfig({ CANOPY_HOME: '/tmp/h' }).hostId, os.hostname());
  });

  it('refuses a CANOPY_HOST_ID that cannot name a task queue, naming the variable and the fix', () => {
    for (const bad of BAD_HOST_IDS) {
      assert.throws(
        () => loadConfig({ CANOPY_HOME: '/tmp/h', CANOPY_HOST_ID: bad }),
        (error: unknown) =>
          error instanceof CanopyError &&
          error.code === 'invalid_input' &&
          /^CANOPY_HOST_ID '.*' is (empty|not 1 to 253 letters, digits, '\.', '_' or '-'); set it to .*e\.g\. CANOPY_HOST_ID=build-1, or unset it/s.test(
            error.message,
          ),
        `CANOPY_HOST_ID ${JSON.stringify(bad)}`,
      );
    }
  });

  it('makes every command refuse to start with a bad CANOPY_HOST_ID, saying how to fix it', () => {
    const home = tempDir('canopy-host-home-');
    for (const args of [['loop', 'list'], ['worker']]) {
      const run = canopySync(homeOnlyEnv(home, { CANOPY_HOST_ID: 'my laptop' }), args, { timeout: 30_000 });
      assert.equal(run.status, 2, `${args.join(' ')}: ${run.stdout}${run.stderr}`);
      assert.match(run.stderr, /^canopy: CANOPY_HOST_ID 'my laptop' is not 1 to 253 letters, digits.*CANOPY_HOST_ID=build-1/);
    }
  });
});

describe('the host of a loop', () => {
  const store = useTestStore();
  const seed = readFileSync(SEED_EXAMPLE_PATH, 'utf8');

  it('is the host of the machine that creates or imports it, and an export leaves it out', async () => {
    const created = await createLoop(store.ctx, { name: 'made here', workdir: store.workdir() });
    assert.equal(created.host, store.ctx.config.hostId);
    const elsewhere = await openContext(loadConfig({ CANOPY_HOME: store.home, CANOPY_HOST_ID: 'build-2' }));
    try {
      const imported = await importLoop(elsewhere, seed, { workdir: store.workdir() });
      assert.equal((await getLoop(store.ctx, imported.loop_id)).host, 'build-2');
      const document = await exportLoop(store.ctx, imported.loop_id);
      assert.ok(!JSON.stringify(document).includes('build-2'), 'the export names no host');
      const again = await importLoop(store.ctx, document, { workdir: store.workdir('copy') });
      assert.equal((await getLoop(store.ctx, again.loop_id)).host, store.ctx.config.hostId, 'the importing machine’s host is recorded');
    } finally {
      await elsewhere.close();
    }
  });

  it('moves with loop_update { host }, null lets any worker run it, and a bad host id is refused with nothing changed', async () => {
    const loop = await createLoop(store.ctx, { name: 'movable', workdir: store.workdir() });
    assert.equal((await updateLoop(store.ctx, { loop_id: loop.id, host: 'gpu-box.lan' })).host, 'gpu-box.lan');
    assert.equal((await updateLoop(store.ctx, { loop_id: loop.id, description: 'kept' })).host, 'gpu-box.lan', 'left out, it stays');
    for (const bad of BAD_HOST_IDS) {
      await assertRefusedUnchanged(store.ctx, () => updateLoop(store.ctx, { loop_id: loop.id, host: bad }), {
        code: 'invalid_input',
        field: 'host',
        message: /give the CANOPY_HOST_ID of the machine the workdir is on/,
      });
    }
    assert.equal((await updateLoop(store.ctx, { loop_id: loop.id, host: null })).host, null);
  });

  it('moves with `canopy loop update --host`, clears with --no-host, and refuses a bad host id', async () => {
    const loop = await createLoop(store.ctx, { name: 'by cli', workdir: store.workdir() });
    const canopy = (...args: string[]) => canopySync(homeOnlyEnv(store.home), ['loop', 'update', loop.id, ...args]);
    const moved = canopy('--host', 'host-b');
    assert.equal(moved.status, 0, moved.stderr);
    assert.match(moved.stdout, / on host-b\.$/m);
    assert.equal((await getLoop(store.ctx, loop.id)).host, 'host-b');

    const refused = canopy('--host', 'host b', '--json');
    assert.equal(refused.status, 2);
    const { error } = JSON.parse(refused.stderr);
    assert.equal(error.code, 'invalid_input');
    assert.deepEqual(
      error.issues.map((issue: { field: string }) => issue.field),
      ['host'],
    );
    assert.equal((await getLoop(store.ctx, loop.id)).host, 'host-b', 'the refusal changed nothing');

    const cleared = canopy('--no-host', '--json');
    assert.equal(cleared.status, 0, cleared.stderr);
    assert.equal(JSON.parse(cleared.stdout).host, null);
  });
});
