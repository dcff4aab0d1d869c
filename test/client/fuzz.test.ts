// Properties over generated input: every loop file, node config and spec either is refused with
// a CanopyError naming its fields and leaves the store exactly as it was, or is stored as given.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import fc from 'fast-check';
import type { ClientContext } from '../../src/client/context';
import { importLoop } from '../../src/client/export-import-service';
import { addNode, updateNode } from '../../src/client/graph-service';
import { createLoop, getLoop } from '../../src/client/loops-service';
import { createSpec, updateSpec } from '../../src/client/specs-service';
import { CanopyError } from '../../src/domain/errors';
import { awkwardText, checkConfigArb, configArb, importDocumentArb, kindArb, nameArb, validNameArb } from '../helpers/arbitraries';
import { storeSnapshot, useTestStore } from '../helpers/store';

/** Fixed, so a failure replays; CANOPY_FUZZ_SEED tries others. */
const SEED = Number(process.env.CANOPY_FUZZ_SEED ?? 20261201);

const store = useTestStore();

interface Tally {
  tried: number;
  refused: number;
  accepted: number;
}

/**
 * Runs `attempt`; a refusal must be a CanopyError naming a field for each problem and must leave
 * the store as it was. Returns what an accepted attempt returned, or undefined when refused.
 */
async function refusedCleanlyOr<T>(ctx: ClientContext, tally: Tally, attempt: () => Promise<T>): Promise<T | undefined> {
  tally.tried++;
  const before = await storeSnapshot(ctx);
  try {
    const accepted = await attempt();
    tally.accepted++;
    return accepted;
  } catch (error) {
    assert.ok(error instanceof CanopyError, `not a refusal but a crash: ${(error as Error)?.stack ?? String(error)}`);
    assert.ok(error.issues.length > 0, `the refusal names no field: ${error.message}`);
    for (const issue of error.issues)
      assert.ok(issue.field && issue.message, `an issue without a field or message: ${JSON.stringify(issue)}`);
    assert.deepEqual(await storeSnapshot(ctx), before, `the refusal changed the store: ${error.message}`);
    tally.refused++;
    return undefined;
  }
}

/** What every stored name must be: one line of printable text with nothing around it. */
function assertCleanName(name: string): void {
  assert.ok(
    !/[\p{Cc}\u2028\u2029]/u.test(name) && name.trim() === name,
    `a name was stored with control characters or spaces: ${JSON.stringify(name)}`,
  );
}

function report(t: TestContext, what: string, tally: Tally): void {
  t.diagnostic(`${what}: seed ${SEED}, ${tally.tried} tried, ${tally.refused} refused, ${tally.accepted} accepted`);
  assert.ok(tally.refused > 0 && tally.accepted > 0, 'the generator reaches both refusals and acceptances');
}

describe('fuzz: input either refused by field, changing nothing, or accepted', () => {
  it('loop files (loop_import)', async (t) => {
    const tally: Tally = { tried: 0, refused: 0, accepted: 0 };
    await fc.assert(
      fc.asyncProperty(importDocumentArb, async (document) => {
        const imported = await refusedCleanlyOr(store.ctx, tally, () => importLoop(store.ctx, document, { workdir: store.workdir() }));
        if (!imported) return;
        const loop = await getLoop(store.ctx, imported.loop_id);
        const given = (typeof document === 'string' ? JSON.parse(document) : document) as { nodes: { name: string }[] };
        for (const node of given.nodes)
          assert.ok(
            loop.nodes.some((stored) => stored.name === node.name),
            `node '${node.name}' stored as given`,
          );
      }),
      { seed: SEED, numRuns: 300 },
    );
    report(t, 'loop files', tally);
  });

  it('node configs (loop_add_node, loop_update_node)', async (t) => {
    const tally: Tally = { tried: 0, refused: 0, accepted: 0 };
    const loop = await createLoop(store.ctx, { name: 'fuzzed', workdir: store.workdir() });
    const existing = await addNode(store.ctx, { loop_id: loop.id, name: 'existing', kind: 'check', config: { command: 'true' } });
    const nodeRequest = fc.oneof(
      fc.record({ name: nameArb, kind: kindArb, position: fc.option(fc.double(), { nil: undefined }), config: configArb }),
      fc.record({
        name: fc.oneof(validNameArb, nameArb),
        kind: fc.constant('check'),
        position: fc.constant(undefined),
        config: checkConfigArb,
      }),
    );
    await fc.assert(
      fc.asyncProperty(nodeRequest, fc.boolean(), async (request, update) => {
        const stored = await refusedCleanlyOr(store.ctx, tally, () =>
          update
            ? updateNode(store.ctx, { node_id: existing.id, name: request.name, config: request.config, position: request.position })
            : addNode(store.ctx, { loop_id: loop.id, ...request }),
        );
        if (stored) assert.equal(stored.name, request.name, 'stored exactly as validated');
        if (stored) assertCleanName(stored.name);
        if (stored && update) await updateNode(store.ctx, { node_id: existing.id, name: 'existing' });
      }),
      { seed: SEED, numRuns: 300 },
    );
    report(t, 'node configs', tally);
  });

  it('specs (spec_create, spec_update): names refused by field, contents kept byte for byte or, with a NUL byte, refused', async (t) => {
    const tally: Tally = { tried: 0, refused: 0, accepted: 0 };
    const content = fc.oneof(awkwardText, fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }));
    await fc.assert(
      fc.asyncProperty(nameArb, content, content, async (name, first, second) => {
        const created = await refusedCleanlyOr(store.ctx, tally, () => createSpec(store.ctx, { name, content: first }));
        if (!created) return;
        assert.ok(!first.includes('\u0000'), 'content with a NUL byte, which no process can receive, is refused');
        assert.equal(created.content, first);
        assertCleanName(created.name);
        const updated = await refusedCleanlyOr(store.ctx, tally, () => updateSpec(store.ctx, { spec_id: created.id, content: second }));
        assert.equal(updated?.content, second.includes('\u0000') ? undefined : second);
      }),
      { seed: SEED, numRuns: 200 },
    );
    report(t, 'specs', tally);
  });
});
