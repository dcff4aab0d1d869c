// Event hooks as a loop's configuration: the whole map through loop_update, the first on_completed
// hook as before, one hook at a time, and a refusal (changing nothing) for each bad value.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addHook, removeHook } from '../../src/client/hooks-service';
import { createLoop, getLoop, updateLoop } from '../../src/client/loops-service';
import { assertRefusedUnchanged, useTestStore } from '../helpers/store';

const store = useTestStore();

describe('event hooks of a loop', () => {
  const newLoop = (name: string) => createLoop(store.ctx, { name, workdir: store.workdir() });

  it('replaces the hooks whole, shows them in loop_get, and removes them all with null or {}', async () => {
    const loop = await newLoop('whole map');
    const hooks = {
      on_completed: [{ platform: 'claude', prompt: 'Summarise {{completed_specs}}' }, { command: 'echo done' }],
      on_failed: [{ command: 'notify "$CANOPY_HOOK_REASON"', timeout_minutes: 2 }],
      on_blocked: [{ platform: 'codex', model: 'o4', prompt: '{{blocker}} at {{node}} in {{spec_name}}' }],
      on_spec_completed: [{ command: 'echo {{spec_name}} {{spec_id}}' }],
    };
    assert.deepEqual((await updateLoop(store.ctx, { loop_id: loop.id, hooks })).hooks, hooks);
    assert.deepEqual((await getLoop(store.ctx, loop.id)).hooks, hooks);
    assert.deepEqual((await updateLoop(store.ctx, { loop_id: loop.id, hooks: { on_failed: [] } })).hooks, {});
    await updateLoop(store.ctx, { loop_id: loop.id, hooks });
    assert.deepEqual((await updateLoop(store.ctx, { loop_id: loop.id, hooks: null })).hooks, {});
  });

  it('keeps on_completed working: it sets or removes only the first on_completed hook', async () => {
    const loop = await newLoop('first hook');
    const first = { platform: 'claude', prompt: 'Docs for {{completed_specs}}' };
    assert.deepEqual((await updateLoop(store.ctx, { loop_id: loop.id, on_completed: first })).hooks, { on_completed: [first] });
    await addHook(store.ctx, { loop_id: loop.id, event: 'on_completed', hook: { command: 'echo second' } });
    const replaced = { platform: 'gemini', prompt: 'New for {{loop_name}}' };
    assert.deepEqual((await updateLoop(store.ctx, { loop_id: loop.id, on_completed: replaced })).hooks, {
      on_completed: [replaced, { command: 'echo second' }],
    });
    assert.deepEqual((await updateLoop(store.ctx, { loop_id: loop.id, on_completed: null })).hooks, {
      on_completed: [{ command: 'echo second' }],
    });
    assert.deepEqual((await updateLoop(store.ctx, { loop_id: loop.id, on_completed: null })).hooks, {});
  });

  it('adds hooks at the end of their event’s list and removes one by index', async () => {
    const loop = await newLoop('one at a time');
    await addHook(store.ctx, { loop_id: loop.id, event: 'on_failed', hook: { command: 'echo a' } });
    await addHook(store.ctx, { loop_id: loop.id, event: 'on_failed', hook: { command: 'echo b' } });
    await addHook(store.ctx, { loop_id: loop.id, event: 'on_failed', hook: { command: 'echo c' } });
    const after = await removeHook(store.ctx, { loop_id: loop.id, event: 'on_failed', index: 1 });
    assert.deepEqual(after.hooks, { on_failed: [{ command: 'echo a' }, { command: 'echo c' }] });
  });

  it('refuses each bad value, naming the field, and changes nothing', async () => {
    const loop = await newLoop('refusals');
    await updateLoop(store.ctx, { loop_id: loop.id, hooks: { on_failed: [{ command: 'echo kept' }] } });
    const update = (change: Record<string, unknown>) => () => updateLoop(store.ctx, { loop_id: loop.id, ...change });
    const refusals: [() => Promise<unknown>, { field: string; message: RegExp }][] = [
      [
        update({ hooks: { on_failed: [{ command: 'echo {{completed_specs}}' }] } }),
        { field: 'hooks.on_failed.0.command', message: /\{\{completed_specs\}\}.*on_failed may use only .*\{\{reason\}\}/ },
      ],
      [
        update({ hooks: { on_blocked: [{ platform: 'claude', prompt: 'fix {{reason}}' }] } }),
        { field: 'hooks.on_blocked.0.prompt', message: /unknown placeholder \{\{reason\}\}.*\{\{blocker\}\}/ },
      ],
      [
        update({ on_completed: { platform: 'claude', prompt: 'Docs for {{spec_name}}' } }),
        {
          field: 'on_completed.prompt',
          message: /\{\{spec_name\}\}.*only \{\{loop_name\}\}, \{\{loop_id\}\}, \{\{workdir\}\}, \{\{completed_specs\}\}/,
        },
      ],
      [
        update({ hooks: { on_failed: [{ command: 'x', platform: 'claude' }] } }),
        { field: 'hooks.on_failed.0.platform', message: /command hook takes no agent fields/ },
      ],
      [update({ hooks: { on_failed: [{}] } }), { field: 'hooks.on_failed.0.prompt', message: /needs command .* or prompt and platform/ }],
      [update({ hooks: { on_failed: [{ prompt: 'hi' }] } }), { field: 'hooks.on_failed.0.platform', message: /needs the platform/ }],
      [update({ hooks: { on_failed: [{ command: '' }] } }), { field: 'hooks.on_failed.0.command', message: /must not be empty/ }],
      [update({ hooks: { on_failed: [{ command: 'a\u0000b' }] } }), { field: 'hooks.on_failed.0.command', message: /NUL/ }],
      [
        update({ hooks: { on_failed: [{ command: 'x', timeout_minutes: 0 }] } }),
        { field: 'hooks.on_failed.0.timeout_minutes', message: /positive/ },
      ],
      [update({ hooks: { on_failed: [{ command: 'x', shell: 'zsh' }] } }), { field: 'hooks.on_failed.0', message: /shell/ }],
      [update({ hooks: { on_merged: [{ command: 'x' }] } }), { field: 'hooks', message: /on_merged/ }],
      [update({ hooks: { on_failed: { command: 'x' } } }), { field: 'hooks.on_failed', message: /array/ }],
      [
        update({ hooks: {}, on_completed: { platform: 'claude', prompt: 'x' } }),
        { field: 'on_completed', message: /give hooks .* or on_completed .*, not both/ },
      ],
      [
        () => addHook(store.ctx, { loop_id: loop.id, event: 'on_spec_completed', hook: { command: 'echo {{blocker}}' } }),
        { field: 'hook.command', message: /\{\{blocker\}\}.*on_spec_completed may use only/ },
      ],
      [
        () => addHook(store.ctx, { loop_id: loop.id, event: 'on_merged', hook: { command: 'x' } }),
        { field: 'event', message: /on_completed/ },
      ],
      [
        () => removeHook(store.ctx, { loop_id: loop.id, event: 'on_failed', index: 1 }),
        { field: 'index', message: /no on_failed hook 1 \(it has indexes 0 to 0\)/ },
      ],
      [() => removeHook(store.ctx, { loop_id: loop.id, event: 'on_blocked', index: 0 }), { field: 'index', message: /it has none/ }],
      [() => removeHook(store.ctx, { loop_id: loop.id, event: 'on_failed', index: -1 }), { field: 'index', message: /0 or more/ }],
    ];
    for (const [work, expected] of refusals) await assertRefusedUnchanged(store.ctx, work, { code: 'invalid_input', ...expected });
    assert.deepEqual((await getLoop(store.ctx, loop.id)).hooks, { on_failed: [{ command: 'echo kept' }] });
  });
});
