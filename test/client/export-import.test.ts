// Export and import: the seed's example imports unchanged, documents round-trip, and a bad file creates no loop.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { exportLoop, importLoop } from '../../src/client/export-import-service';
import { updateEnsemble } from '../../src/client/graph-service';
import { FORMAT_VERSION } from '../../src/domain/export-document';
import { getLoop, listLoops } from '../../src/client/loops-service';
import { insertNode } from '../../src/store/graph-repository';
import { newId } from '../../src/store/ids';
import { assertRefused, SEED_EXAMPLE_PATH, useTestStore, withEntryLists, type ExpectedRefusal } from '../helpers/store';

const store = useTestStore();
const seedText = readFileSync(SEED_EXAMPLE_PATH, 'utf8');
const seedDocument = () => JSON.parse(seedText) as Record<string, any>;
const workdir = (name?: string) => store.workdir(name);

/** A version-1 file whose settings hold `key`, which version 2 added: refused, naming the key and the version it needs. */
function versionOneSetting(key: string, value: unknown): [string, () => unknown, ExpectedRefusal] {
  return [
    `a version-1 file with ${key} in its settings`,
    () => ({ ...seedDocument(), settings: { [key]: value } }),
    {
      code: 'invalid_input',
      field: `settings.${key}`,
      message: new RegExp(`needs format_version 2 \\(this file says 1\\); set format_version to 2 or remove ${key}`),
    },
  ];
}

/** A design using every part of the format: settings, each node kind, loopback and tool edges, two ensembles, models. */
function richDocument(): Record<string, unknown> {
  return {
    format_version: FORMAT_VERSION,
    name: 'rich',
    description: 'Every part of the format',
    settings: { max_iterations: 3, spec_attempt_limit: 4, idle_timeout_minutes: 20, budget_usd: 12.5, budget_tokens: 2000000 },
    hooks: {
      on_completed: [{ platform: 'claude', model: 'haiku', prompt: 'Summarise {{completed_specs}}', timeout_minutes: 5 }],
      on_failed: [
        { command: 'notify-send "$CANOPY_HOOK_REASON"' },
        { command: 'echo {{node}}', timeout_minutes: 1, idle_timeout_minutes: 0.5 },
      ],
      on_blocked: [{ platform: 'codex', prompt: 'Unblock {{blocker}}' }],
      on_spec_completed: [{ command: 'echo {{spec_name}}' }],
    },
    nodes: [
      {
        name: 'implement',
        kind: 'agent',
        position: 1,
        config: { platform: 'claude', model: 'opus', prompt_template: 'Do {{spec_content}}', max_iterations: 4 },
      },
      { name: 'test', kind: 'check', position: 2, config: { command: 'npm test', timeout_minutes: 5, idle_timeout_minutes: 2 } },
      { name: 'triage', kind: 'router', position: 3, config: { routes: { bug: ['BUG'], flaky: ['FLAKY'] }, fallback: 'bug' } },
      { name: 'looks-done', kind: 'gate', position: 5, config: { output_contains: 'DONE' } },
      { name: 'helper', kind: 'agent', position: 9, config: { prompt_template: 'Help' } },
    ],
    edges: [
      { source: 'implement', target: 'test', condition: 'pass' },
      { source: 'test', target: 'triage', condition: 'fail' },
      { source: 'triage', target: 'implement', condition: 'bug', type: 'loopback' },
      { source: 'implement', target: 'helper', condition: 'always', type: 'tool' },
    ],
    ensembles: [
      {
        name: 'reviewers',
        prompt_template: 'Review {{previous_output}}',
        entry_from: [{ node: 'test', condition: 'pass' }],
        on_pass_to: 'looks-done',
        min_pass: 1,
        straggler_timeout_minutes: 10,
        quorum_grace_minutes: 0.5,
        idle_timeout_minutes: 4,
        isolation: 'worktree',
        members: [
          { platform: 'claude', model: 'sonnet' },
          { platform: 'codex', prompt_override: 'Be strict: {{previous_output}}', timeout_minutes: 7, idle_timeout_minutes: 3 },
        ],
      },
      {
        name: 'voters',
        prompt_template: 'Vote',
        position: 20,
        min_pass: 2,
        quorum_grace_minutes: 0,
        members: [{ platform: 'gemini' }, {}, {}],
      },
      {
        name: 'fallbacks',
        kind: 'cascade',
        prompt_template: 'Fix it',
        position: 30,
        members: [{ platform: 'opencode', model: 'small' }, { platform: 'claude' }],
      },
    ],
  };
}

/** Edges are a set; export lists them in a stable order of its own. */
function sortedEdges(edges: object[]): string[] {
  return edges.map((edge) => JSON.stringify(edge)).sort();
}

describe('import', () => {
  it('imports the seed example unchanged, reporting every agent left without a platform', async () => {
    const result = await importLoop(store.ctx, seedText, { workdir: workdir() });
    assert.deepEqual(result, {
      loop_id: result.loop_id,
      name: 'implement-and-review',
      nodes_missing_platform: ['implementer', 'committer', 'reviewers/member-1', 'reviewers/member-2'],
    });
    const loop = await getLoop(store.ctx, result.loop_id);
    assert.equal(loop.workdir, workdir());
    assert.deepEqual(loop.nodes.map((node) => node.name).sort(), [
      'committer',
      'implementer',
      'reviewers/member-1',
      'reviewers/member-2',
      'reviewers/quorum',
    ]);
    assert.deepEqual(loop.edges.map((edge) => `${edge.source} -${edge.condition}-> ${edge.target}`).sort(), [
      'implementer -always-> reviewers',
      'reviewers -pass-> committer',
    ]);
    assert.deepEqual(await exportLoop(store.ctx, result.loop_id), withEntryLists({ ...seedDocument(), format_version: FORMAT_VERSION }));
  });

  it('imports a file’s text that starts with a UTF-8 byte-order mark, as loop_import may be given it', async () => {
    const result = await importLoop(store.ctx, `\uFEFF${seedText}`, { workdir: workdir() });
    assert.deepEqual(await exportLoop(store.ctx, result.loop_id), withEntryLists({ ...seedDocument(), format_version: FORMAT_VERSION }));
  });

  it('reads a version-1 file as the design it always meant, and exports it as the same design in the newest version', async () => {
    assert.equal(seedDocument().format_version, 1);
    const first = await importLoop(store.ctx, seedText, { workdir: workdir('v1') });
    const exported = await exportLoop(store.ctx, first.loop_id, { with_models: true });
    assert.equal(exported.format_version, FORMAT_VERSION);
    assert.deepEqual(exported, withEntryLists({ ...seedDocument(), format_version: FORMAT_VERSION }));
    assert.equal('quorum_grace_minutes' in exported.ensembles[0], false, 'a version-1 ensemble waits for every member');
    assert.equal('hooks' in exported, false, 'a loop without hooks exports none');
    const again = await importLoop(store.ctx, exported, { workdir: workdir('v2') });
    assert.deepEqual(await exportLoop(store.ctx, again.loop_id, { with_models: true }), exported);
  });

  it('carries quorum_grace_minutes, 0 included, through export and import, and drops it once cleared', async () => {
    const { loop_id } = await importLoop(store.ctx, richDocument(), { workdir: workdir() });
    const exported = await exportLoop(store.ctx, loop_id);
    assert.deepEqual(
      exported.ensembles.map((e) => [e.name, e.quorum_grace_minutes]),
      [
        ['reviewers', 0.5],
        ['voters', 0],
        ['fallbacks', undefined],
      ],
    );
    await updateEnsemble(store.ctx, { loop_id, name: 'reviewers', quorum_grace_minutes: null });
    assert.equal('quorum_grace_minutes' in (await exportLoop(store.ctx, loop_id)).ensembles[0], false);
  });

  it('carries infra_retries, infra_backoff_seconds, allow_dirty_start and error edges through export and import', async () => {
    const document = {
      ...seedDocument(),
      format_version: 2,
      settings: { infra_retries: 0, infra_backoff_seconds: 2, allow_dirty_start: true },
      edges: [{ source: 'implementer', target: 'committer', condition: 'error' }],
    };
    const { loop_id } = await importLoop(store.ctx, document, { workdir: workdir() });
    const exported = await exportLoop(store.ctx, loop_id);
    assert.deepEqual([exported.format_version, exported.settings, exported.edges], [FORMAT_VERSION, document.settings, document.edges]);
    assert.deepEqual((await getLoop(store.ctx, loop_id)).settings, document.settings);
  });

  it('round-trips: export, import, export gives the same document, with and without models', async () => {
    const original = await importLoop(store.ctx, richDocument(), { workdir: workdir('a') });
    for (const with_models of [true, false]) {
      const first = await exportLoop(store.ctx, original.loop_id, { with_models });
      const copy = await importLoop(store.ctx, JSON.stringify(first), { workdir: workdir(`copy-${with_models}`) });
      assert.deepEqual(await exportLoop(store.ctx, copy.loop_id, { with_models }), first);
    }
    const exported = await exportLoop(store.ctx, original.loop_id, { with_models: true });
    const expected = richDocument();
    assert.deepEqual({ ...exported, edges: sortedEdges(exported.edges) }, { ...expected, edges: sortedEdges(expected.edges as object[]) });
  });

  it('strips platform and model unless asked, keeping each member’s own prompt and timeouts', async () => {
    const { loop_id } = await importLoop(store.ctx, richDocument(), { workdir: workdir() });
    const document = await exportLoop(store.ctx, loop_id);
    assert.deepEqual(document.nodes[0].config, { prompt_template: 'Do {{spec_content}}', max_iterations: 4 });
    assert.deepEqual(document.ensembles[0].members, [
      {},
      { prompt_override: 'Be strict: {{previous_output}}', timeout_minutes: 7, idle_timeout_minutes: 3 },
    ]);
    assert.equal(document.edges.find((edge) => edge.target === 'test')?.type, undefined, 'flow is the default type');
    assert.deepEqual(document.hooks, richDocument().hooks, 'a hook keeps its platform and model: it cannot run without one');
    const copy = await importLoop(store.ctx, document, { workdir: workdir('copy') });
    assert.deepEqual(copy.nodes_missing_platform, [
      'implement',
      'helper',
      'reviewers/member-1',
      'reviewers/member-2',
      'voters/member-1',
      'voters/member-2',
      'voters/member-3',
      'fallbacks/member-1',
      'fallbacks/member-2',
    ]);
  });

  it('takes a free name when the one asked for is taken in the workdir, and --name overrides the file’s', async () => {
    const names = [];
    for (let i = 0; i < 3; i++) names.push((await importLoop(store.ctx, seedText, { workdir: workdir() })).name);
    assert.deepEqual(names, ['implement-and-review', 'implement-and-review (2)', 'implement-and-review (3)']);
    assert.equal((await importLoop(store.ctx, seedText, { workdir: workdir('elsewhere') })).name, 'implement-and-review');
    assert.equal((await importLoop(store.ctx, seedText, { workdir: workdir(), name: 'Mine' })).name, 'Mine');
  });

  it('defaults the workdir to the current directory', async () => {
    const { loop_id } = await importLoop(store.ctx, seedText);
    assert.equal((await getLoop(store.ctx, loop_id)).workdir, process.cwd());
  });
});

describe('import refuses a bad file and creates no loop', () => {
  const refusals: [string, () => unknown, ExpectedRefusal][] = [
    ['text that is not JSON', () => '{"format_version": 1,', { code: 'invalid_input', field: '(document)', message: /not valid JSON/ }],
    [
      'format_version 4',
      () => ({ ...seedDocument(), format_version: 4 }),
      { code: 'invalid_input', field: 'format_version', message: /must be one of 1, 2, 3; a newer file needs a newer canopy/ },
    ],
    [
      'a version-2 file with max_stalled_rounds in its settings',
      () => ({ ...seedDocument(), format_version: 2, settings: { max_stalled_rounds: 3 } }),
      {
        code: 'invalid_input',
        field: 'settings.max_stalled_rounds',
        message: /needs format_version 3 \(this file says 2\); set format_version to 3 or remove max_stalled_rounds/,
      },
    ],
    [
      'a version-2 file with max_stalled_rounds on a node',
      () => {
        const document: Record<string, any> = { ...seedDocument(), format_version: 2 };
        document.nodes[0].config.max_stalled_rounds = 3;
        return document;
      },
      {
        code: 'invalid_input',
        field: 'nodes.0.config.max_stalled_rounds',
        message: /needs format_version 3 \(this file says 2\); set format_version to 3 or remove max_stalled_rounds/,
      },
    ],
    [
      'a version-2 file with resume on an agent',
      () => {
        const document: Record<string, any> = { ...seedDocument(), format_version: 2 };
        document.nodes[0].config.resume = true;
        return document;
      },
      {
        code: 'invalid_input',
        field: 'nodes.0.config.resume',
        message: /needs format_version 3 \(this file says 2\); set format_version to 3 or remove resume/,
      },
    ],
    [
      'a version-2 file with resume on an ensemble member',
      () => {
        const document: Record<string, any> = { ...seedDocument(), format_version: 2 };
        document.ensembles[0].members[0].resume = false;
        return document;
      },
      {
        code: 'invalid_input',
        field: 'ensembles.0.members.0.resume',
        message: /needs format_version 3 \(this file says 2\); set format_version to 3 or remove resume/,
      },
    ],
    [
      'a max_stalled_rounds of 1',
      () => ({ ...seedDocument(), format_version: 3, settings: { max_stalled_rounds: 1 } }),
      {
        code: 'invalid_input',
        field: 'settings.max_stalled_rounds',
        message: /must be a whole number of rounds from 2 to 1000 \(a stall is/,
      },
    ],
    [
      'a max_stalled_rounds above 1000 on a head node',
      () => {
        const document: Record<string, any> = { ...seedDocument(), format_version: 3 };
        document.nodes[0].config.max_stalled_rounds = 1001;
        return document;
      },
      { code: 'invalid_input', field: 'nodes[0].config.max_stalled_rounds', message: /must be a whole number of rounds from 2 to 1000/ },
    ],
    [
      'format_version as text',
      () => ({ ...seedDocument(), format_version: '2' }),
      { code: 'invalid_input', field: 'format_version', message: /must be one of 1, 2/ },
    ],
    [
      'a version-1 file with quorum_grace_minutes',
      () => withGrace(seedDocument(), 0.5),
      {
        code: 'invalid_input',
        field: 'ensembles.0.quorum_grace_minutes',
        message: /needs format_version 2 \(this file says 1\); set format_version to 2/,
      },
    ],
    [
      'a version-1 file with isolation',
      () => {
        const document = seedDocument();
        document.ensembles[0] = { ...document.ensembles[0], isolation: 'worktree' };
        return document;
      },
      {
        code: 'invalid_input',
        field: 'ensembles.0.isolation',
        message: /needs format_version 2 \(this file says 1\); set format_version to 2 or remove isolation/,
      },
    ],
    [
      'a version-2 file with an ensemble kind',
      () => {
        const document: Record<string, any> = { ...seedDocument(), format_version: 2 };
        document.ensembles[0] = { ...document.ensembles[0], kind: 'cascade' };
        return document;
      },
      {
        code: 'invalid_input',
        field: 'ensembles.0.kind',
        message: /needs format_version 3 \(this file says 2\); set format_version to 3 or remove kind/,
      },
    ],
    [
      'an isolation that is neither shared nor worktree',
      () => {
        const document: Record<string, any> = { ...seedDocument(), format_version: 2 };
        document.ensembles[0] = { ...document.ensembles[0], isolation: 'copy' };
        return document;
      },
      { code: 'invalid_input', field: 'ensembles.0.isolation', message: /must be "shared" .* or "worktree"/ },
    ],
    versionOneSetting('spec_attempt_limit', 2),
    [
      'a spec_attempt_limit of 0',
      () => ({ ...seedDocument(), format_version: 2, settings: { spec_attempt_limit: 0 } }),
      { code: 'invalid_input', field: 'settings.spec_attempt_limit', message: /must be at least 1/ },
    ],
    versionOneSetting('infra_retries', 1),
    versionOneSetting('infra_backoff_seconds', 2),
    [
      'an infra_backoff_seconds above 60',
      () => ({ ...seedDocument(), format_version: 2, settings: { infra_backoff_seconds: 61 } }),
      { code: 'invalid_input', field: 'settings.infra_backoff_seconds', message: /must be at most 60/ },
    ],
    versionOneSetting('allow_dirty_start', true),
    [
      'an allow_dirty_start that is not true or false',
      () => ({ ...seedDocument(), format_version: 2, settings: { allow_dirty_start: 'yes' } }),
      { code: 'invalid_input', field: 'settings.allow_dirty_start', message: /must be true or false/ },
    ],
    versionOneSetting('idle_timeout_minutes', 5),
    [
      'a version-1 file with idle_timeout_minutes on a node',
      () => {
        const document = seedDocument();
        document.nodes[0].config.idle_timeout_minutes = 5;
        return document;
      },
      {
        code: 'invalid_input',
        field: 'nodes.0.config.idle_timeout_minutes',
        message: /needs format_version 2 \(this file says 1\); set format_version to 2 or remove idle_timeout_minutes/,
      },
    ],
    versionOneSetting('budget_usd', 5),
    versionOneSetting('budget_tokens', 100000),
    [
      'an idle_timeout_minutes of 0',
      () => ({ ...seedDocument(), format_version: 2, settings: { idle_timeout_minutes: 0 } }),
      { code: 'invalid_input', field: 'settings.idle_timeout_minutes', message: /must be a positive number of minutes/ },
    ],
    [
      'a version-1 file with hooks',
      () => ({ ...seedDocument(), hooks: { on_failed: [{ command: 'true' }] } }),
      {
        code: 'invalid_input',
        field: 'hooks',
        message: /needs format_version 2 \(this file says 1\); set format_version to 2 or remove hooks/,
      },
    ],
    [
      'a hook with a placeholder its event does not give',
      () => ({ ...seedDocument(), format_version: 2, hooks: { on_spec_completed: [{ command: 'echo {{reason}}' }] } }),
      { code: 'invalid_input', field: 'hooks.on_spec_completed.0.command', message: /unknown placeholder \{\{reason\}\}.*\{\{spec_id\}\}/ },
    ],
    [
      'a hook that is both a command and an agent',
      () => ({ ...seedDocument(), format_version: 2, hooks: { on_failed: [{ command: 'true', prompt: 'x', platform: 'claude' }] } }),
      { code: 'invalid_input', field: 'hooks.on_failed.0.prompt', message: /command hook takes no agent fields/ },
    ],
    [
      'a version-1 file with an error edge',
      () => ({ ...seedDocument(), edges: [{ source: 'implementer', target: 'committer', condition: 'error' }] }),
      { code: 'invalid_input', field: 'edges.0.condition', message: /needs format_version 2 \(this file says 1\)/ },
    ],
    [
      'an infra_retries above 10',
      () => ({ ...seedDocument(), format_version: 2, settings: { infra_retries: 11 } }),
      { code: 'invalid_input', field: 'settings.infra_retries', message: /must be at most 10/ },
    ],
    [
      'an error edge leaving a gate',
      () => ({
        ...seedDocument(),
        format_version: 2,
        nodes: [...seedDocument().nodes, { name: 'gate', kind: 'gate', position: 9, config: { output_contains: 'ok' } }],
        edges: [{ source: 'gate', target: 'committer', condition: 'error' }],
      }),
      { code: 'invalid_input', field: 'edges[0].condition', message: /'error' is not an outcome of 'gate'/ },
    ],
    [
      'an error loopback',
      () => ({
        ...seedDocument(),
        format_version: 2,
        edges: [
          { source: 'implementer', target: 'committer', condition: 'pass' },
          { source: 'committer', target: 'implementer', condition: 'error', type: 'loopback' },
        ],
      }),
      { code: 'invalid_input', field: 'edges[1].condition', message: /loopback on error.*make it a flow edge/ },
    ],
    [
      'a negative quorum_grace_minutes',
      () => withGrace({ ...seedDocument(), format_version: 2 }, -1),
      { code: 'invalid_input', field: 'ensembles.0.quorum_grace_minutes', message: /must be 0 or more minutes/ },
    ],
    [
      'a quorum_grace_minutes that is not a number',
      () => withGrace({ ...seedDocument(), format_version: 2 }, 'soon'),
      { code: 'invalid_input', field: 'ensembles.0.quorum_grace_minutes', message: /must be a number of minutes/ },
    ],
    [
      'resume on a check',
      () =>
        withNode(
          { ...seedDocument(), format_version: 3 },
          { name: 'tests', kind: 'check', position: 5, config: { command: 'npm test', resume: true } },
        ),
      { code: 'invalid_input', field: 'nodes[2].config', message: /Unrecognized key: "resume".*resume is an agent setting/ },
    ],
    [
      'a resume that is not true or false on an agent',
      () => {
        const document: Record<string, any> = { ...seedDocument(), format_version: 3 };
        document.nodes[0].config.resume = 'always';
        return document;
      },
      { code: 'invalid_input', field: 'nodes[0].config.resume', message: /must be true or false/ },
    ],
    [
      'an empty resume_prompt',
      () => {
        const document: Record<string, any> = { ...seedDocument(), format_version: 3 };
        document.nodes[0].config.resume_prompt = '';
        return document;
      },
      { code: 'invalid_input', field: 'nodes[0].config.resume_prompt', message: /must not be empty/ },
    ],
    [
      'quorum_grace_minutes on a node',
      () => {
        const document: Record<string, any> = { ...seedDocument(), format_version: 2 };
        document.nodes[0].config.quorum_grace_minutes = 1;
        return document;
      },
      { code: 'invalid_input', field: 'nodes[0].config', message: /quorum_grace_minutes is an ensemble setting: give it to an ensemble/ },
    ],
    [
      'an unknown node kind',
      () => withNode(seedDocument(), { name: 'deploy', kind: 'deployer', position: 5, config: {} }),
      { code: 'invalid_input', field: 'nodes.2.kind' },
    ],
    [
      'an edge to a missing node',
      () => ({ ...seedDocument(), edges: [{ source: 'committer', target: 'publisher', condition: 'pass' }] }),
      { code: 'invalid_input', field: 'edges[0].target', message: /'publisher' is not a node or ensemble/ },
    ],
    [
      'a flow cycle',
      () => ({ ...seedDocument(), edges: [{ source: 'committer', target: 'implementer', condition: 'fail' }] }),
      { code: 'invalid_input', field: 'edges[0]', message: /closes the cycle.*loopback/ },
    ],
    [
      'a one-member ensemble',
      () => withMembers(seedDocument(), 1),
      { code: 'invalid_input', field: 'ensembles.0.members', message: /at least 2/ },
    ],
    [
      'a nine-member ensemble',
      () => withMembers(seedDocument(), 9),
      { code: 'invalid_input', field: 'ensembles.0.members', message: /at most 8/ },
    ],
    [
      'a nested ensemble',
      () => {
        const document = seedDocument();
        document.ensembles.push({ name: 'inner', prompt_template: 'Again', members: [{}, {}], entry_from_node: 'reviewers/quorum' });
        return document;
      },
      { code: 'invalid_input', field: 'ensembles[1].entry_from_node', message: /cannot be nested/ },
    ],
  ];

  for (const [what, document, expected] of refusals) {
    it(what, async () => {
      await assertRefused(importLoop(store.ctx, document(), { workdir: workdir() }), expected);
      assert.deepEqual(await listLoops(store.ctx, { include_archived: true }), []);
    });
  }

  it('names every problem of a file at once', async () => {
    const document = {
      ...seedDocument(),
      edges: [
        { source: 'committer', target: 'publisher', condition: 'pass' },
        { source: 'ghost', target: 'implementer', condition: 'pass' },
      ],
    };
    const error = await assertRefused(importLoop(store.ctx, document), { code: 'invalid_input' });
    assert.deepEqual(
      error.issues.map((issue) => issue.field),
      ['edges[0].target', 'edges[1].source'],
    );
  });

  function withNode(document: Record<string, any>, node: unknown) {
    return { ...document, nodes: [...document.nodes, node] };
  }

  it('names a version-2 key in a version-1 file together with the file’s other problems', async () => {
    const document = withGrace(seedDocument(), 1);
    document.nodes[0].kind = 'deployer';
    const error = await assertRefused(importLoop(store.ctx, document, { workdir: workdir() }), { code: 'invalid_input' });
    assert.deepEqual(
      error.issues.map((issue) => issue.field),
      ['nodes.0.kind', 'ensembles.0.quorum_grace_minutes'],
    );
  });

  function withGrace(document: Record<string, any>, grace: unknown) {
    document.ensembles[0] = { ...document.ensembles[0], min_pass: 1, quorum_grace_minutes: grace };
    return document;
  }

  function withMembers(document: Record<string, any>, count: number) {
    document.ensembles[0] = { ...document.ensembles[0], min_pass: 1, members: Array.from({ length: count }, () => ({})) };
    return document;
  }
});

describe('export', () => {
  it('refuses a loop whose names are not unique, naming them', async () => {
    const { loop_id } = await importLoop(store.ctx, seedText, { workdir: workdir() });
    // Only a store written outside the services can hold a node named like an ensemble.
    await insertNode(store.ctx.db, {
      id: newId('node'),
      loop_id,
      name: 'reviewers',
      kind: 'check',
      position: 9,
      config: { command: 'true' },
      ensemble_id: null,
      member_index: null,
    });
    await assertRefused(exportLoop(store.ctx, loop_id), { code: 'refused', message: /used more than once: reviewers\./ });
  });
});

describe('ensemble entries and chains in the file', () => {
  /** tests enters panel on pass, and fix (after tests' fail) on pass too; panel's quorum routes straight to second's. */
  function chainedDocument(): Record<string, any> {
    return {
      format_version: FORMAT_VERSION,
      name: 'chained',
      description: '',
      nodes: [
        { name: 'tests', kind: 'check', position: 1, config: { command: 'npm test' } },
        { name: 'fix', kind: 'agent', position: 2, config: { prompt_template: 'Fix' } },
        { name: 'ship', kind: 'agent', position: 5, config: { prompt_template: 'Ship' } },
      ],
      edges: [{ source: 'tests', target: 'fix', condition: 'fail' }],
      ensembles: [
        {
          name: 'panel',
          prompt_template: 'Review',
          members: [{}, {}],
          entry_from: [
            { node: 'fix', condition: 'pass' },
            { node: 'tests', condition: 'pass' },
          ],
          on_pass_to: { ensemble: 'second' },
        },
        { name: 'second', prompt_template: 'Again', members: [{}, {}], on_pass_to: 'ship' },
      ],
    };
  }

  it('writes every entry and an ensemble target as {"ensemble": name}, and imports them back as they were', async () => {
    const { loop_id } = await importLoop(store.ctx, chainedDocument(), { workdir: workdir() });
    const exported = await exportLoop(store.ctx, loop_id);
    assert.deepEqual(exported, chainedDocument(), 'each ensemble sits by default just after the last vertex wired into it');
    const loop = await getLoop(store.ctx, loop_id);
    assert.deepEqual(loop.edges.map((edge) => `${edge.source} -${edge.condition}-> ${edge.target}`).sort(), [
      'fix -pass-> panel',
      'panel -pass-> second',
      'second -pass-> ship',
      'tests -fail-> fix',
      'tests -pass-> panel',
    ]);
    const copy = await importLoop(store.ctx, JSON.stringify(exported), { workdir: workdir('copy') });
    assert.deepEqual(await exportLoop(store.ctx, copy.loop_id), exported);
  });

  it('reads an older file’s quorum routed to an ensemble by its name, and writes it as {"ensemble": name}', async () => {
    const older: Record<string, any> = { ...chainedDocument(), format_version: 2 };
    older.ensembles[0] = {
      ...older.ensembles[0],
      entry_from: undefined,
      entry_from_node: 'tests',
      entry_condition: 'pass',
      on_pass_to: 'second',
    };
    const { loop_id } = await importLoop(store.ctx, JSON.parse(JSON.stringify(older)), { workdir: workdir() });
    const panel = (await exportLoop(store.ctx, loop_id)).ensembles[0];
    assert.deepEqual([panel.entry_from, panel.on_pass_to], [[{ node: 'tests', condition: 'pass' }], { ensemble: 'second' }]);
  });

  const refusals: [string, () => Record<string, any>, ExpectedRefusal][] = [
    [
      'a version-2 file with entry_from',
      () => ({ ...chainedDocument(), format_version: 2 }),
      {
        code: 'invalid_input',
        field: 'ensembles.0.entry_from',
        message: /needs format_version 3 \(this file says 2\); set format_version to 3 or remove entry_from/,
      },
    ],
    [
      'a version-1 file routing to {"ensemble": name}',
      () => {
        const document: Record<string, any> = { ...chainedDocument(), format_version: 1 };
        document.ensembles[0] = { ...document.ensembles[0], entry_from: undefined };
        return JSON.parse(JSON.stringify(document)) as Record<string, any>;
      },
      { code: 'invalid_input', field: 'ensembles.0.on_pass_to', message: /needs format_version 3 \(this file says 1\)/ },
    ],
    [
      'a duplicate entry',
      () => {
        const document = chainedDocument();
        document.ensembles[0].entry_from.push({ node: 'fix', condition: 'fail' });
        return document;
      },
      { code: 'invalid_input', field: 'ensembles[0].entry_from[2]', message: /already has an entry from 'fix'/ },
    ],
    [
      'an entry from a node that does not exist',
      () => {
        const document = chainedDocument();
        document.ensembles[0].entry_from[0] = { node: 'ghost' };
        return document;
      },
      { code: 'invalid_input', field: 'ensembles[0].entry_from[0].node', message: /'ghost' is not a node or ensemble/ },
    ],
    [
      'an entry from the ensemble itself',
      () => {
        const document = chainedDocument();
        document.ensembles[1].entry_from = [{ ensemble: 'second' }];
        return document;
      },
      { code: 'invalid_input', field: 'ensembles[1].entry_from[0]', message: /closes the cycle second -> second/ },
    ],
    [
      'a target naming a missing ensemble',
      () => {
        const document = chainedDocument();
        document.ensembles[0].on_pass_to = { ensemble: 'third' };
        return document;
      },
      { code: 'invalid_input', field: 'ensembles[0].on_pass_to.ensemble', message: /'third' is not a node or ensemble/ },
    ],
  ];

  for (const [what, document, expected] of refusals) {
    it(`refuses ${what}, creating no loop`, async () => {
      await assertRefused(importLoop(store.ctx, document(), { workdir: workdir() }), expected);
      assert.deepEqual(await listLoops(store.ctx, { include_archived: true }), []);
    });
  }
});
