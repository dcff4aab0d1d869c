// Input checked where it enters, for every interface at once: names that would corrupt a terminal
// or differ from what was validated, and workdirs a loop could never run in, are refused and change nothing.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createBlueprint } from '../../src/client/blueprints-service';
import type { ClientContext } from '../../src/client/context';
import { importLoop } from '../../src/client/export-import-service';
import { addEnsemble, addNode, updateNode } from '../../src/client/graph-service';
import { createLoop, updateLoop } from '../../src/client/loops-service';
import { createQueue } from '../../src/client/queues-service';
import { createSpec, updateSpec } from '../../src/client/specs-service';
import { assertRefusedUnchanged, useTestStore } from '../helpers/store';

const store = useTestStore();

/** Names no entity may have, with what the refusal must say about each. */
const BAD_NAMES: [string, RegExp][] = [
  ['two\nlines', /control characters/],
  ['clear\u001b[2Jscreen', /control characters/],
  ['nul\u0000byte', /control characters/],
  ['tab\there', /control characters/],
  ['bell\u0007', /control characters/],
  ['csi\u009bJ', /control characters/],
  ['line\u2028separator', /control characters/],
  [' leading', /must not start or end with whitespace/],
  ['trailing ', /must not start or end with whitespace/],
];

const check = (name: string) => ({ name, kind: 'check', position: 1, config: { command: 'true' } });
const exportDocument = (overrides: Record<string, unknown> = {}) => ({
  format_version: 1,
  name: 'doc',
  nodes: [check('a')],
  edges: [],
  ...overrides,
});
const members = [{ platform: 'fake' }, { platform: 'fake' }];
const newLoop = async (ctx: ClientContext) => (await createLoop(ctx, { name: `loop ${Math.random()}`, workdir: store.workdir() })).id;

interface Entry {
  entry: string;
  /** The field the refusal must name. */
  field: string;
  /** Writes what the call needs (a loop to update…) before the store is compared; returns its id. */
  prepare?: (ctx: ClientContext) => Promise<string>;
  call: (ctx: ClientContext, value: string, prepared: string) => Promise<unknown>;
}

/** Every way a name enters canopy. */
const NAME_ENTRIES: Entry[] = [
  { entry: 'loop create', field: 'name', call: (ctx, name) => createLoop(ctx, { name, workdir: store.workdir() }) },
  { entry: 'loop update', field: 'name', prepare: newLoop, call: (ctx, name, loop_id) => updateLoop(ctx, { loop_id, name }) },
  {
    entry: 'loop import (the file’s name)',
    field: 'name',
    call: (ctx, name) => importLoop(ctx, exportDocument({ name }), { workdir: store.workdir() }),
  },
  {
    entry: 'loop import (--name)',
    field: 'name',
    call: (ctx, name) => importLoop(ctx, exportDocument(), { workdir: store.workdir(), name }),
  },
  {
    entry: 'loop import (a node)',
    field: 'nodes[0].name',
    call: (ctx, name) => importLoop(ctx, exportDocument({ nodes: [check(name)] }), { workdir: store.workdir() }),
  },
  {
    entry: 'loop import (an ensemble)',
    field: 'ensembles.0.name',
    call: (ctx, name) =>
      importLoop(ctx, exportDocument({ ensembles: [{ name, prompt_template: 'p', members, entry_from_node: 'a' }] }), {
        workdir: store.workdir(),
      }),
  },
  { entry: 'node add', field: 'name', prepare: newLoop, call: (ctx, name, loop_id) => addNode(ctx, { loop_id, ...check(name) }) },
  {
    entry: 'node update',
    field: 'name',
    prepare: async (ctx) => (await addNode(ctx, { loop_id: await newLoop(ctx), ...check('plain') })).id,
    call: (ctx, name, node_id) => updateNode(ctx, { node_id, name }),
  },
  {
    entry: 'ensemble add',
    field: 'name',
    prepare: newLoop,
    call: (ctx, name, loop_id) => addEnsemble(ctx, { loop_id, name, prompt_template: 'p', members }),
  },
  { entry: 'spec create', field: 'name', call: (ctx, name) => createSpec(ctx, { name }) },
  {
    entry: 'spec update',
    field: 'name',
    prepare: async (ctx) => (await createSpec(ctx, { name: 'fine' })).id,
    call: (ctx, name, spec_id) => updateSpec(ctx, { spec_id, name }),
  },
  { entry: 'queue create', field: 'name', call: (ctx, name) => createQueue(ctx, { name }) },
  {
    entry: 'blueprint create',
    field: 'name',
    call: (ctx, name) => createBlueprint(ctx, { name, kind: 'check', config: { command: 'true' } }),
  },
];

describe('names', () => {
  for (const { entry, field, prepare, call } of NAME_ENTRIES) {
    it(`${entry} refuses control characters and surrounding whitespace, naming ${field}, and changes nothing`, async () => {
      for (const [name, message] of BAD_NAMES) {
        const prepared = prepare ? await prepare(store.ctx) : '';
        await assertRefusedUnchanged(store.ctx, () => call(store.ctx, name, prepared), { code: 'invalid_input', field, message });
      }
    });
  }

  it('stores a node name exactly as validated: " a" is refused, "a b" and non-ASCII names are kept as given', async () => {
    const loopId = await newLoop(store.ctx);
    await assertRefusedUnchanged(store.ctx, () => addNode(store.ctx, { loop_id: loopId, ...check(' a') }), {
      code: 'invalid_input',
      field: 'name',
      message: /remove the spaces around it/,
    });
    assert.equal((await addNode(store.ctx, { loop_id: loopId, ...check('a b') })).name, 'a b');
    assert.equal((await createLoop(store.ctx, { name: 'ünïcode ✓ name', workdir: store.workdir() })).name, 'ünïcode ✓ name');
  });
});

describe('workdirs', () => {
  const BAD_WORKDIRS: [string, () => string, RegExp][] = [
    ['relative', () => 'some/relative/dir', /must be an absolute path.*pass the full path/],
    ['missing', () => path.join(store.home, 'missing'), /does not exist; create it first, or pass an existing directory/],
    [
      'file',
      () => {
        const file = path.join(store.workdir(), 'a-file.txt');
        writeFileSync(file, 'not a directory');
        return file;
      },
      /is not a directory; pass the directory the loop works in/,
    ],
  ];
  const ENTRIES: Entry[] = [
    { entry: 'loop create', field: 'workdir', call: (ctx, workdir) => createLoop(ctx, { name: 'w', workdir }) },
    { entry: 'loop update', field: 'workdir', prepare: newLoop, call: (ctx, workdir, loop_id) => updateLoop(ctx, { loop_id, workdir }) },
    { entry: 'loop import', field: 'workdir', call: (ctx, workdir) => importLoop(ctx, exportDocument(), { workdir }) },
  ];
  for (const { entry, field, prepare, call } of ENTRIES) {
    for (const [kind, workdir, message] of BAD_WORKDIRS) {
      it(`${entry} refuses a ${kind} workdir, saying the fix, and changes nothing`, async () => {
        const [dir, prepared] = [workdir(), prepare ? await prepare(store.ctx) : ''];
        await assertRefusedUnchanged(store.ctx, () => call(store.ctx, dir, prepared), { code: 'invalid_input', field, message });
      });
    }
  }
});
