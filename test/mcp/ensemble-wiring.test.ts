// Ensemble wiring over MCP (the SDK's client against `canopy mcp`): entries added and removed with
// loop_update_ensemble, a quorum routed to another ensemble, the export of both, and each refusal
// naming its field while the loop stays as it was.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { directoryIn, tempDir } from '../helpers/store';
import { callOk, callRefused, connectStdio, type StdioSession } from '../helpers/mcp-client';
import { homeOnlyEnv } from '../helpers/processes';

describe('ensemble wiring over MCP', () => {
  let home: string;
  let session: StdioSession;
  let loopId: string;

  before(async () => {
    home = tempDir('canopy-mcp-wiring-');
    session = await connectStdio(homeOnlyEnv(home));
    loopId = (await call('loop_create', { name: 'wired', workdir: directoryIn(home) })).id;
    await call('loop_add_node', { loop_id: loopId, name: 'tests', kind: 'check', config: { command: 'true' } });
    await call('loop_add_node', { loop_id: loopId, name: 'fix', kind: 'agent', config: { prompt_template: 'Fix' } });
    await call('loop_add_node', { loop_id: loopId, name: 'ship', kind: 'agent', config: { prompt_template: 'Ship' } });
    await call('loop_add_edge', { loop_id: loopId, source: 'tests', target: 'fix', condition: 'fail' });
    await call('loop_add_ensemble', {
      loop_id: loopId,
      name: 'second',
      prompt_template: 'Again',
      members: [{ platform: 'claude' }, { platform: 'codex' }],
      on_pass_to: 'ship',
    });
  });

  after(async () => {
    await session.client.close();
    rmSync(home, { recursive: true, force: true });
  });

  const call = (tool: string, args: Record<string, unknown>) => callOk(session.client, tool, args);
  const update = (changes: Record<string, unknown>) => ({ loop_id: loopId, name: 'panel', ...changes });

  /** The refusal's text names the field, and loop_get shows the loop as it was. */
  async function refusedUnchanged(tool: string, args: Record<string, unknown>, expected: RegExp): Promise<void> {
    const before = await call('loop_get', { loop_id: loopId });
    assert.match(await callRefused(session.client, tool, args), expected);
    assert.deepEqual(await call('loop_get', { loop_id: loopId }), before);
  }

  it('adds an ensemble with two entries and one chained to another, then adds and removes entries one at a time', async () => {
    const added = await call('loop_add_ensemble', {
      loop_id: loopId,
      name: 'panel',
      prompt_template: 'Review',
      members: [{ platform: 'claude' }, { platform: 'gemini' }],
      entry_from: [{ node: 'tests', condition: 'pass' }],
      on_pass_to: { ensemble: 'second' },
    });
    assert.deepEqual([added.entry_from, added.on_pass_to], [[{ node: 'tests', condition: 'pass' }], { ensemble: 'second' }]);

    const twoEntries = await call('loop_update_ensemble', update({ add_entry_from: [{ node: 'fix', condition: 'pass' }] }));
    assert.deepEqual(twoEntries.entry_from, [
      { node: 'fix', condition: 'pass' },
      { node: 'tests', condition: 'pass' },
    ]);
    const exported = await call('loop_export', { loop_id: loopId });
    const panel = exported.ensembles.find((ensemble: { name: string }) => ensemble.name === 'panel');
    assert.deepEqual([panel.entry_from, panel.on_pass_to], [twoEntries.entry_from, { ensemble: 'second' }]);

    const oneEntry = await call('loop_update_ensemble', update({ remove_entry_from: [{ node: 'tests' }] }));
    assert.deepEqual(oneEntry.entry_from, [{ node: 'fix', condition: 'pass' }]);
    const restored = await call('loop_update_ensemble', update({ add_entry_from: [{ node: 'tests', condition: 'pass' }] }));
    assert.deepEqual(restored.entry_from, twoEntries.entry_from);
  });

  it('refuses, naming the field, an entry from nothing, from itself, twice, and removing one it does not have', async () => {
    await refusedUnchanged(
      'loop_update_ensemble',
      update({ add_entry_from: [{ node: 'ghost' }] }),
      /add_entry_from\[0\]\.node: 'ghost' is not a node or ensemble/,
    );
    await refusedUnchanged(
      'loop_update_ensemble',
      update({ add_entry_from: [{ ensemble: 'panel' }] }),
      /add_entry_from\[0\]: this flow edge closes the cycle panel -> panel/,
    );
    await refusedUnchanged(
      'loop_update_ensemble',
      update({ add_entry_from: [{ node: 'tests' }] }),
      /add_entry_from\[0\]: 'panel' already has an entry from 'tests' \(on pass\)/,
    );
    await refusedUnchanged(
      'loop_update_ensemble',
      update({ remove_entry_from: [{ node: 'ship' }] }),
      /remove_entry_from\[0\]: 'panel' has no entry from 'ship'/,
    );
  });

  it('refuses, naming the field, a target naming a missing ensemble, a node as an ensemble, or itself', async () => {
    await refusedUnchanged(
      'loop_update_ensemble',
      update({ on_fail_to: { ensemble: 'third' } }),
      /on_fail_to\.ensemble: 'third' is not a node or ensemble/,
    );
    await refusedUnchanged(
      'loop_update_ensemble',
      update({ on_fail_to: { ensemble: 'ship' } }),
      /on_fail_to\.ensemble: 'ship' is a node, not an ensemble/,
    );
    await refusedUnchanged(
      'loop_update_ensemble',
      update({ on_fail_to: { ensemble: 'panel' } }),
      /on_fail_to: this flow edge closes the cycle panel -> panel/,
    );
  });
});
