// The CLI end to end as a real child process (run after the build: bin/canopy.js loads dist/).
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { AUTHORED_NODE_KINDS, NODE_KIND_SUMMARIES } from '../../src/node-kinds/catalogue';
import { canopySync, homeOnlyEnv } from '../helpers/processes';
import { directoryIn, SEED_EXAMPLE_PATH, tempDir } from '../helpers/store';

/** A fresh canopy home per test, and canopy run against it only, whatever store the environment points at. */
function useIsolatedHome() {
  const cli = {
    home: '',
    canopyIn: (cwd: string, ...args: string[]) => canopySync(homeOnlyEnv(cli.home), args, { cwd }),
    canopy: (...args: string[]) => cli.canopyIn(process.cwd(), ...args),
  };
  beforeEach(() => {
    cli.home = tempDir('canopy-cli-home-');
  });
  afterEach(() => {
    rmSync(cli.home, { recursive: true, force: true });
  });
  return cli;
}

describe('canopy loop import (CLI)', () => {
  const cli = useIsolatedHome();
  const { canopy } = cli;

  it('prints exactly loop_id, name and nodes_missing_platform with --json, and the loop is stored', () => {
    const workdir = directoryIn(cli.home);
    const imported = canopy('loop', 'import', SEED_EXAMPLE_PATH, '--workdir', workdir, '--json');
    assert.equal(imported.status, 0, imported.stderr);
    const printed = JSON.parse(imported.stdout);
    assert.deepEqual(Object.keys(printed), ['loop_id', 'name', 'nodes_missing_platform']);
    assert.match(printed.loop_id, /^loop_/);
    assert.equal(printed.name, 'implement-and-review');
    assert.deepEqual(printed.nodes_missing_platform, ['implementer', 'committer', 'reviewers/member-1', 'reviewers/member-2']);

    const got = canopy('loop', 'get', printed.loop_id, '--json');
    assert.equal(got.status, 0, got.stderr);
    assert.equal(JSON.parse(got.stdout).workdir, workdir);
  });

  it('refuses a file that is not JSON: non-zero exit, a JSON error on stderr, no loop', () => {
    const file = path.join(cli.home, 'broken.json');
    writeFileSync(file, '{"format_version": 1,');
    const imported = canopy('loop', 'import', file, '--json');
    assert.notEqual(imported.status, 0);
    assert.equal(imported.stdout, '');
    const { error } = JSON.parse(imported.stderr);
    assert.equal(error.code, 'invalid_input');
    assert.deepEqual(
      error.issues.map((issue: { field: string }) => issue.field),
      ['(document)'],
    );

    const listed = canopy('loop', 'list', '--all', '--json');
    assert.deepEqual(JSON.parse(listed.stdout), []);
  });
});

describe('canopy loop node add (CLI): JSON options', () => {
  const cli = useIsolatedHome();
  const { canopy } = cli;

  it('refuses a --config that is not JSON or not an object, naming the option, and adds no node', () => {
    const created = canopy('loop', 'create', '--name', 'json', '--workdir', directoryIn(cli.home), '--json');
    const loopId = JSON.parse(created.stdout).id as string;
    const cases: [string, string[], RegExp][] = [
      ['text that is not JSON', ['--config', '{"command": '], /is not valid JSON \(.*\); quote it for the shell/],
      ['an array', ['--config', '["npm test"]'], /must be a JSON object/],
      ['both forms at once', ['--config', '{}', '--config-file', 'x.json'], /not both/],
    ];
    for (const [label, options, message] of cases) {
      const added = canopy('loop', 'node', 'add', loopId, '--name', 'tests', '--kind', 'check', ...options, '--json');
      assert.notEqual(added.status, 0, label);
      const { error } = JSON.parse(added.stderr);
      assert.equal(error.code, 'invalid_input', label);
      assert.match(error.issues[0].field, /^--config/, label);
      assert.match(error.issues[0].message, message, label);
    }
    assert.deepEqual(JSON.parse(canopy('loop', 'get', loopId, '--json').stdout).nodes, []);
  });

  it('refuses resume and resume_prompt on a node that is no agent, or malformed on an agent, naming the field, and adds no node', () => {
    const created = canopy('loop', 'create', '--name', 'resumes', '--workdir', directoryIn(cli.home), '--json');
    const loopId = JSON.parse(created.stdout).id as string;
    const agentOnly = /Unrecognized key: "resume(_prompt)?"; remove it .*; resume(_prompt)? is an agent setting: only agent nodes take it/;
    const cases: [string, Record<string, unknown>, string, RegExp][] = [
      ['check', { command: 'npm test', resume: true }, 'config', agentOnly],
      ['gate', { output_contains: 'ok', resume: true }, 'config', agentOnly],
      ['router', { routes: { bug: ['bug'] }, resume_prompt: 'Again' }, 'config', agentOnly],
      ['approval', { message_template: 'Ship it?', resume_prompt: 'Again' }, 'config', agentOnly],
      ['agent', { prompt_template: 'Do it', resume: 'yes' }, 'config.resume', /must be true or false/],
      ['agent', { prompt_template: 'Do it', resume: true, resume_prompt: '' }, 'config.resume_prompt', /must not be empty/],
      [
        'agent',
        { prompt_template: 'Do it', resume_prompt: 'Fix {{failures}}' },
        'config.resume_prompt',
        /unknown placeholder \{\{failures\}\}/,
      ],
    ];
    for (const [kind, config, field, message] of cases) {
      const label = `${kind} ${JSON.stringify(config)}`;
      const added = canopy('loop', 'node', 'add', loopId, '--name', 'n', '--kind', kind, '--config', JSON.stringify(config), '--json');
      assert.notEqual(added.status, 0, label);
      const { error } = JSON.parse(added.stderr);
      assert.equal(error.code, 'invalid_input', label);
      const issue = (error.issues as { field: string; message: string }[]).find((i) => i.field.endsWith(field));
      assert.ok(issue, `${label}: ${added.stderr}`);
      assert.match(issue.message, message, label);
    }
    assert.deepEqual(JSON.parse(canopy('loop', 'get', loopId, '--json').stdout).nodes, []);
  });

  it('names the kinds a person adds, each with what it does, and refuses another kind before touching the store', () => {
    const help = canopy('loop', 'node', 'add', '--help');
    assert.equal(help.status, 0, help.stderr);
    for (const kind of AUTHORED_NODE_KINDS) assert.ok(help.stdout.includes(`  ${kind}: ${NODE_KIND_SUMMARIES[kind]}`), kind);
    assert.doesNotMatch(help.stdout, /quorum:/);

    const created = canopy('loop', 'create', '--name', 'kinds', '--workdir', directoryIn(cli.home), '--json');
    const loopId = JSON.parse(created.stdout).id as string;
    for (const kind of ['quorum', 'approvall']) {
      const added = canopy('loop', 'node', 'add', loopId, '--name', 'n', '--kind', kind, '--config', '{}');
      assert.notEqual(added.status, 0, kind);
      assert.ok(added.stderr.includes(`'${kind}' is invalid. Allowed choices are ${AUTHORED_NODE_KINDS.join(', ')}.`), added.stderr);
    }
    assert.deepEqual(JSON.parse(canopy('loop', 'get', loopId, '--json').stdout).nodes, []);
  });
});

describe('canopy loop create and import (CLI): workdirs', () => {
  const cli = useIsolatedHome();
  const { canopyIn } = cli;

  it('resolves a relative --workdir against the current directory, as a person means it', () => {
    const project = directoryIn(cli.home);
    const created = canopyIn(cli.home, 'loop', 'create', '--name', 'here', '--workdir', 'project', '--json');
    assert.equal(created.status, 0, created.stderr);
    assert.equal(JSON.parse(created.stdout).workdir, project);
    const imported = canopyIn(project, 'loop', 'import', SEED_EXAMPLE_PATH, '--json');
    assert.equal(imported.status, 0, imported.stderr);
    assert.equal(JSON.parse(canopyIn(cli.home, 'loop', 'get', JSON.parse(imported.stdout).loop_id, '--json').stdout).workdir, project);
  });

  it('refuses a workdir that does not exist, saying the fix, and creates no loop', () => {
    const created = canopyIn(cli.home, 'loop', 'create', '--name', 'nowhere', '--workdir', 'missing');
    assert.equal(created.status, 2);
    assert.match(created.stderr, /workdir: '.*missing' does not exist; create it first, or pass an existing directory \(--workdir\)/);
    const imported = canopyIn(cli.home, 'loop', 'import', SEED_EXAMPLE_PATH, '--workdir', 'missing', '--json');
    assert.equal(JSON.parse(imported.stderr).error.issues[0].field, 'workdir');
    assert.deepEqual(JSON.parse(canopyIn(cli.home, 'loop', 'list', '--all', '--json').stdout), []);
  });
});

describe('canopy loop ensemble (CLI)', () => {
  const cli = useIsolatedHome();
  const { canopy } = cli;
  const json = (result: ReturnType<typeof canopy>) => {
    assert.equal(result.status, 0, result.stderr);
    return JSON.parse(result.stdout);
  };

  it('adds and updates an ensemble’s quorum_grace_minutes, shows it in loop get, and refuses one that is not a number', () => {
    const loop = json(canopy('loop', 'create', '--name', 'graced', '--workdir', directoryIn(cli.home), '--json'));
    const config = { name: 'reviewers', prompt_template: 'Review', members: [{}, {}, {}], min_pass: 2, quorum_grace_minutes: 0.5 };
    const added = canopy('loop', 'ensemble', 'add', loop.id, '--config', JSON.stringify(config));
    assert.equal(added.status, 0, added.stderr);
    assert.match(added.stdout, /min_pass 2, quorum_grace_minutes 0\.5/);
    const updated = json(canopy('loop', 'ensemble', 'update', loop.id, 'reviewers', '--config', '{"quorum_grace_minutes": 0}', '--json'));
    assert.equal(updated.quorum_grace_minutes, 0);

    const refused = canopy('loop', 'ensemble', 'update', loop.id, 'reviewers', '--config', '{"quorum_grace_minutes": "soon"}', '--json');
    assert.notEqual(refused.status, 0);
    const { error } = JSON.parse(refused.stderr);
    assert.deepEqual(
      error.issues.map((issue: { field: string; message: string }) => [issue.field, issue.message]),
      [['quorum_grace_minutes', 'must be a number of minutes, e.g. 0.5 (or 0 to cut the rest at once)']],
    );
    assert.equal(json(canopy('loop', 'get', loop.id, '--json')).ensembles[0].quorum_grace_minutes, 0);
  });

  it('adds a cascade, shows its kind in loop info, and refuses a min_pass it cannot use, changing nothing', () => {
    const loop = json(canopy('loop', 'create', '--name', 'turns', '--workdir', directoryIn(cli.home), '--json'));
    const config = { name: 'fixers', kind: 'cascade', prompt_template: 'Fix', members: [{}, {}] };
    const added = canopy('loop', 'ensemble', 'add', loop.id, '--config', JSON.stringify(config));
    assert.equal(added.status, 0, added.stderr);
    assert.match(added.stdout, /^Added cascade ensemble 'fixers' \(\S+\): 2 members \[.*\], first pass wins/);
    assert.match(canopy('loop', 'info', loop.id).stdout, /fixers \[2 models\] cascade: one at a time until one passes/);

    const refused = canopy('loop', 'ensemble', 'update', loop.id, 'fixers', '--config', '{"min_pass": 2}', '--json');
    assert.equal(refused.status, 2, refused.stderr);
    assert.equal(JSON.parse(refused.stderr).error.issues[0].field, 'min_pass');
    assert.equal(json(canopy('loop', 'get', loop.id, '--json')).ensembles[0].min_pass, undefined);
  });

  it('wires an ensemble from two nodes and to another ensemble, changes entries one at a time, and says so', () => {
    const loop = json(canopy('loop', 'create', '--name', 'wired', '--workdir', directoryIn(cli.home), '--json'));
    for (const name of ['draft', 'fix']) {
      json(canopy('loop', 'node', 'add', loop.id, '--name', name, '--kind', 'agent', '--config', '{"prompt_template": "Go"}', '--json'));
    }
    json(
      canopy(
        'loop',
        'ensemble',
        'add',
        loop.id,
        '--config',
        JSON.stringify({ name: 'second', prompt_template: 'Again', members: [{}, {}] }),
        '--json',
      ),
    );
    const config = {
      name: 'panel',
      prompt_template: 'Review',
      members: [{}, {}],
      entry_from: [{ node: 'draft', condition: 'pass' }],
      on_pass_to: { ensemble: 'second' },
    };
    const added = canopy('loop', 'ensemble', 'add', loop.id, '--config', JSON.stringify(config));
    assert.equal(added.status, 0, added.stderr);
    assert.match(added.stdout, /; from draft on pass, pass -> ensemble second\.$/m);

    const update = (changes: object) => canopy('loop', 'ensemble', 'update', loop.id, 'panel', '--config', JSON.stringify(changes));
    const twoEntries = update({ add_entry_from: [{ node: 'fix', condition: 'fail' }] });
    assert.equal(twoEntries.status, 0, twoEntries.stderr);
    assert.match(twoEntries.stdout, /; from draft on pass, from fix on fail, pass -> ensemble second\.$/m);
    const described = canopy('loop', 'get', loop.id);
    assert.match(described.stdout, /ensemble 'panel' .*; from draft on pass, from fix on fail, pass -> ensemble second/);
    const oneEntry = json(
      canopy('loop', 'ensemble', 'update', loop.id, 'panel', '--config', '{"remove_entry_from": [{"node": "draft"}]}', '--json'),
    );
    assert.deepEqual(oneEntry.entry_from, [{ node: 'fix', condition: 'fail' }]);

    const refusal = (changes: object) => {
      const refused = canopy('loop', 'ensemble', 'update', loop.id, 'panel', '--config', JSON.stringify(changes), '--json');
      assert.notEqual(refused.status, 0);
      return JSON.parse(refused.stderr).error.issues.map((issue: { field: string; message: string }) => `${issue.field}: ${issue.message}`);
    };
    const before = json(canopy('loop', 'get', loop.id, '--json'));
    assert.deepEqual(refusal({ add_entry_from: [{ node: 'ghost' }] }), [
      "add_entry_from[0].node: 'ghost' is not a node or ensemble of this design; use one of: draft, fix, second, panel",
    ]);
    assert.match(
      refusal({ add_entry_from: [{ node: 'fix' }] }).join(),
      /^add_entry_from\[0\]: 'panel' already has an entry from 'fix' \(on fail\)/,
    );
    assert.match(
      refusal({ add_entry_from: [{ ensemble: 'panel' }] }).join(),
      /^add_entry_from\[0\]: this flow edge closes the cycle panel -> panel/,
    );
    assert.match(
      refusal({ remove_entry_from: [{ node: 'draft' }] }).join(),
      /^remove_entry_from\[0\]: 'panel' has no entry from 'draft'; its entries come from 'fix' \(fail\)/,
    );
    assert.deepEqual(refusal({ on_pass_to: { ensemble: 'third' } }), [
      "on_pass_to.ensemble: 'third' is not a node or ensemble of this design; use one of: draft, fix, second, panel",
    ]);
    assert.match(refusal({ on_fail_to: { ensemble: 'panel' } }).join(), /^on_fail_to: this flow edge closes the cycle panel -> panel/);
    assert.deepEqual(json(canopy('loop', 'get', loop.id, '--json')), before);
  });
});

describe('files saved with a UTF-8 byte-order mark (CLI)', () => {
  const cli = useIsolatedHome();
  const { canopy } = cli;

  /** A file as some editors save UTF-8: a byte-order mark, then the text. */
  function withByteOrderMark(name: string, text: string): string {
    const file = path.join(cli.home, name);
    writeFileSync(file, `\uFEFF${text}`);
    return file;
  }

  function importedLoop(file: string): string {
    const imported = canopy('loop', 'import', file, '--workdir', directoryIn(cli.home), '--json');
    assert.equal(imported.status, 0, imported.stderr);
    return JSON.parse(imported.stdout).loop_id;
  }

  it('loop import reads a loop file that starts with one', () => {
    const loopId = importedLoop(withByteOrderMark('loop.json', readFileSync(SEED_EXAMPLE_PATH, 'utf8')));
    assert.equal(JSON.parse(canopy('loop', 'get', loopId, '--json').stdout).name, 'implement-and-review');
  });

  it('a --config-file option reads a JSON file that starts with one', () => {
    const file = withByteOrderMark('config.json.option', JSON.stringify({ command: 'npm test' }));
    const created = canopy('blueprint', 'create', '--name', 'tests', '--kind', 'check', '--config-file', file, '--json');
    assert.equal(created.status, 0, created.stderr);
    assert.deepEqual(JSON.parse(created.stdout).config, { command: 'npm test' });
  });

  it('spec create --file leaves it out of the content', () => {
    const loopId = importedLoop(SEED_EXAMPLE_PATH);
    const file = withByteOrderMark('spec.md', 'Add a greeting.\n');
    const created = canopy('spec', 'create', '--loop', loopId, '--name', 'greet', '--file', file, '--json');
    assert.equal(created.status, 0, created.stderr);
    assert.equal(JSON.parse(created.stdout).content, 'Add a greeting.\n');
  });

  it('config.json is read when it starts with one', () => {
    withByteOrderMark('config.json', JSON.stringify({ platforms: { stand_in: { argv: [process.execPath, '{{prompt}}'] } } }));
    const agent = { name: 'agent', kind: 'agent', position: 1, config: { platform: 'stand_in', prompt_template: 'Do it' } };
    const file = path.join(cli.home, 'loop.json');
    writeFileSync(
      file,
      JSON.stringify({ format_version: 2, name: 'one agent', description: '', nodes: [agent], edges: [], ensembles: [] }),
    );
    const loopId = importedLoop(file);
    const { checks } = JSON.parse(canopy('loop', 'preflight', loopId, '--json').stdout) as { checks: { name: string; ok: boolean }[] };
    const platformChecks = checks.filter((check) => check.name.startsWith('platform '));
    assert.deepEqual(
      platformChecks.map(({ name, ok }) => ({ name, ok })),
      [{ name: 'platform stand_in', ok: true }],
    );
  });
});
