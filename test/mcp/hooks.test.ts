// Event hooks over MCP, through the SDK's client against `canopy mcp`: loop_update { hooks } replaces
// them whole, on_completed still sets the first, loop_get shows them, and bad values change nothing.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { directoryIn, tempDir } from '../helpers/store';
import { callOk, callRefused, connectStdio, type StdioSession } from '../helpers/mcp-client';
import { homeOnlyEnv } from '../helpers/processes';

describe('event hooks over MCP', () => {
  let home: string;
  let session: StdioSession;
  before(async () => {
    home = tempDir('canopy-mcp-hooks-');
    session = await connectStdio(homeOnlyEnv(home));
  });
  after(async () => {
    await session.client.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('describes hooks in loop_update’s schema, with each event’s placeholders', async () => {
    const { tools } = await session.client.listTools();
    const update = tools.find((tool) => tool.name === 'loop_update')!;
    const hooks = update.inputSchema.properties!.hooks as { description: string };
    assert.match(
      hooks.description,
      /on_failed \(\{\{loop_name\}\} \{\{loop_id\}\} \{\{workdir\}\} \{\{node\}\} \{\{failure_kind\}\} \{\{reason\}\} \{\{spec_name\}\}\)/,
    );
    assert.match(hooks.description, /CANOPY_HOOK_/);
  });

  it('replaces the hooks whole, keeps on_completed as the first hook, shows them in loop_get, and refuses bad values unchanged', async () => {
    const { client } = session;
    const loop = await callOk(client, 'loop_create', { name: 'hooked over mcp', workdir: directoryIn(home) });
    const hooks = {
      on_failed: [{ command: 'notify "$CANOPY_HOOK_REASON"' }],
      on_spec_completed: [{ platform: 'claude', prompt: 'Note {{spec_name}} ({{spec_id}})' }],
    };
    assert.deepEqual((await callOk(client, 'loop_update', { loop_id: loop.id, hooks })).hooks, hooks);
    const first = { platform: 'claude', prompt: 'Summarise {{completed_specs}}' };
    await callOk(client, 'loop_update', { loop_id: loop.id, on_completed: first });
    const expected = { ...hooks, on_completed: [first] };
    assert.deepEqual((await callOk(client, 'loop_get', { loop_id: loop.id })).hooks, expected);

    const refusals: [Record<string, unknown>, RegExp][] = [
      [
        { hooks: { on_blocked: [{ command: 'echo {{reason}}' }] } },
        /hooks\.on_blocked\.0\.command: unknown placeholder \{\{reason\}\}.*\{\{blocker\}\}/,
      ],
      [
        { hooks: { on_failed: [{ command: 'x', prompt: 'y' }] } },
        /a command hook takes no agent fields.* at hooks\.on_failed\[0\]\.prompt/,
      ],
      [{ hooks: { on_failed: [{ platform: 'claude' }] } }, /a hook needs command .* at hooks\.on_failed\[0\]\.prompt/],
      [{ hooks: { on_done: [] } }, /on_done/],
      [{ on_completed: { platform: 'claude', prompt: '{{node}}' } }, /on_completed\.prompt: unknown placeholder \{\{node\}\}/],
      [{ on_completed: null, hooks: {} }, /on_completed: give hooks .* not both/],
    ];
    for (const [change, message] of refusals)
      assert.match(await callRefused(client, 'loop_update', { loop_id: loop.id, ...change }), message);
    assert.deepEqual((await callOk(client, 'loop_get', { loop_id: loop.id })).hooks, expected);

    assert.deepEqual((await callOk(client, 'loop_update', { loop_id: loop.id, hooks: null })).hooks, {});
  });
});
