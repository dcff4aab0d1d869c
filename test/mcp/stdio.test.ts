// `canopy mcp` over stdio, driven by the SDK's client: the tool list, authoring a loop, refusals, export/import, specs and self-reports.
import assert from 'node:assert/strict';
import { FORMAT_VERSION } from '../../src/domain/export-document';
import { readFileSync, rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { hashRunToken } from '../../src/run-token';
import { openContext, type ClientContext } from '../../src/client/context';
import { loadConfig } from '../../src/config';
import { getNodeRun, insertNodeRun } from '../../src/store/node-runs-repository';
import { directoryIn, SEED_EXAMPLE_PATH, tempDir, withEntryLists } from '../helpers/store';
import { ALL_TOOLS, callOk, callRefused, connectStdio, type StdioSession } from '../helpers/mcp-client';
import { homeOnlyEnv } from '../helpers/processes';

const ENV_RUN_TOKEN = 'token-from-the-environment';

describe('canopy mcp (stdio)', () => {
  let home: string;
  let session: StdioSession;
  /** The test's own view of the store the server process uses. */
  let ctx: ClientContext;

  before(async () => {
    home = tempDir('canopy-mcp-stdio-');
    session = await connectStdio(homeOnlyEnv(home, { CANOPY_RUN_TOKEN: ENV_RUN_TOKEN }));
    ctx = await openContext(loadConfig({ CANOPY_HOME: home }));
  });

  after(async () => {
    await session.client.close();
    await ctx.close();
    rmSync(home, { recursive: true, force: true });
  });

  const workdir = (name?: string) => directoryIn(home, name);

  it('lists every tool, each with a title, a description, annotations and a described input schema', async () => {
    const { tools } = await session.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ALL_TOOLS);
    for (const tool of tools) {
      assert.ok(tool.title && tool.description, `${tool.name} needs a title and a description`);
      assert.equal(typeof tool.annotations?.readOnlyHint, 'boolean', `${tool.name} states whether it only reads`);
      assert.equal(tool.inputSchema.type, 'object');
      for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        assert.ok((schema as { description?: string }).description, `${tool.name}.${field} has no description`);
      }
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    assert.equal(byName.get('loop_get')!.annotations!.readOnlyHint, true);
    assert.equal(byName.get('loop_delete')!.annotations!.destructiveHint, true);
    assert.ok('run_token' in byName.get('loop_complete_node')!.inputSchema.properties!, 'over stdio a self-report may name its run');
  });

  it('builds a loop node by node and refuses a cycle of flow edges with the loopback hint, leaving the graph as it was', async () => {
    const loop = await callOk(session.client, 'loop_create', { name: 'built by mcp', workdir: workdir() });
    assert.match(loop.id, /^loop_/);
    await callOk(session.client, 'loop_add_node', {
      loop_id: loop.id,
      name: 'implement',
      kind: 'agent',
      config: { prompt_template: 'Do {{spec_content}}' },
    });
    await callOk(session.client, 'loop_add_node', { loop_id: loop.id, name: 'test', kind: 'check', config: { command: 'npm test' } });
    const edge = await callOk(session.client, 'loop_add_edge', {
      loop_id: loop.id,
      source: 'implement',
      target: 'test',
      condition: 'pass',
    });
    assert.deepEqual([edge.source, edge.target, edge.condition, edge.type], ['implement', 'test', 'pass', 'flow']);

    const before = await callOk(session.client, 'loop_get', { loop_id: loop.id });
    const refusal = await callRefused(session.client, 'loop_add_edge', {
      loop_id: loop.id,
      source: 'test',
      target: 'implement',
      condition: 'fail',
    });
    assert.match(refusal, /nothing was changed/);
    assert.match(refusal, /edge: .*closes the cycle implement -> test -> implement.*loopback/s);
    assert.deepEqual(await callOk(session.client, 'loop_get', { loop_id: loop.id }), before);

    const loopback = await callOk(session.client, 'loop_add_edge', {
      loop_id: loop.id,
      source: 'test',
      target: 'implement',
      condition: 'fail',
      type: 'loopback',
    });
    assert.equal(loopback.type, 'loopback');
  });

  it('refuses bad arguments and unknown ids as isError results that name what to change', async () => {
    assert.match(await callRefused(session.client, 'loop_create', { name: 'no workdir' }), /workdir/);
    assert.match(await callRefused(session.client, 'loop_get', { loop_id: 'loop_missing' }), /No loop with id 'loop_missing'.*loop_list/s);
    const loop = await callOk(session.client, 'loop_create', { name: 'gates', workdir: workdir() });
    const refusal = await callRefused(session.client, 'loop_add_node', { loop_id: loop.id, name: 'gate', kind: 'gate', config: {} });
    assert.match(refusal, /config: a gate needs at least one of output_contains/);
    const check = { loop_id: loop.id, name: 'tests', kind: 'check', config: { command: 'npm test', resume: true } };
    assert.match(await callRefused(session.client, 'loop_add_node', check), /Unrecognized key: "resume".*resume is an agent setting/);
    const agent = { loop_id: loop.id, name: 'fix', kind: 'agent', config: { prompt_template: 'Fix it', resume_prompt: '{{nope}}' } };
    assert.match(await callRefused(session.client, 'loop_add_node', agent), /resume_prompt: unknown placeholder \{\{nope\}\}/);
    assert.deepEqual((await callOk(session.client, 'loop_get', { loop_id: loop.id })).nodes, []);
  });

  it('sets and clears quorum_grace_minutes through the ensemble tools, refusing a negative one with the field', async () => {
    const loop = await callOk(session.client, 'loop_create', { name: 'graced', workdir: workdir() });
    const members = [{ platform: 'claude' }, { platform: 'codex' }, { platform: 'gemini' }];
    const added = await callOk(session.client, 'loop_add_ensemble', {
      loop_id: loop.id,
      name: 'reviewers',
      prompt_template: 'Review',
      members,
      min_pass: 2,
      quorum_grace_minutes: 1.5,
    });
    assert.equal(added.quorum_grace_minutes, 1.5);
    assert.equal((await callOk(session.client, 'loop_get', { loop_id: loop.id })).ensembles[0].quorum_grace_minutes, 1.5);

    const before = await callOk(session.client, 'loop_get', { loop_id: loop.id });
    const refusal = await callRefused(session.client, 'loop_update_ensemble', {
      loop_id: loop.id,
      name: 'reviewers',
      quorum_grace_minutes: -1,
    });
    assert.match(refusal, /must be 0 or more minutes .* at quorum_grace_minutes/);
    assert.deepEqual(await callOk(session.client, 'loop_get', { loop_id: loop.id }), before);

    const cleared = await callOk(session.client, 'loop_update_ensemble', {
      loop_id: loop.id,
      name: 'reviewers',
      quorum_grace_minutes: null,
    });
    assert.equal('quorum_grace_minutes' in cleared, false);

    const turned = await callOk(session.client, 'loop_update_ensemble', {
      loop_id: loop.id,
      name: 'reviewers',
      kind: 'round_robin',
      min_pass: 1,
    });
    assert.equal(turned.kind, 'round_robin');
    const graceRefused = await callRefused(session.client, 'loop_update_ensemble', {
      loop_id: loop.id,
      name: 'reviewers',
      quorum_grace_minutes: 1,
    });
    assert.match(graceRefused, /quorum_grace_minutes: applies to a parallel ensemble only \(its members run one at a time otherwise\)/);
    assert.equal((await callOk(session.client, 'loop_get', { loop_id: loop.id })).ensembles[0].kind, 'round_robin');
  });

  it('imports a document, reporting the agents left without a platform, and exports it back unchanged', async () => {
    const document = JSON.parse(readFileSync(SEED_EXAMPLE_PATH, 'utf8'));
    const imported = await callOk(session.client, 'loop_import', { document, workdir: workdir('imported') });
    assert.equal(imported.name, 'implement-and-review');
    assert.deepEqual(imported.nodes_missing_platform, ['implementer', 'committer', 'reviewers/member-1', 'reviewers/member-2']);
    assert.deepEqual(
      await callOk(session.client, 'loop_export', { loop_id: imported.loop_id }),
      withEntryLists({ ...document, format_version: FORMAT_VERSION }),
    );

    const fromText = await callOk(session.client, 'loop_import', { document: JSON.stringify(document), workdir: workdir('imported') });
    assert.equal(fromText.name, 'implement-and-review (2)');

    const listed = await callOk(session.client, 'loop_list', {});
    assert.ok(listed.loops.some((loop: { id: string }) => loop.id === imported.loop_id));
  });

  it('refuses an invalid document and creates no loop', async () => {
    const before = (await callOk(session.client, 'loop_list', { include_archived: true })).loops.length;
    const refusal = await callRefused(session.client, 'loop_import', {
      document: { format_version: FORMAT_VERSION + 1, name: 'x', nodes: [], edges: [] },
      workdir: workdir(),
    });
    assert.match(refusal, /format_version/);
    assert.equal((await callOk(session.client, 'loop_list', { include_archived: true })).loops.length, before);
  });

  it('creates and lists specs', async () => {
    const loop = await callOk(session.client, 'loop_create', { name: 'with specs', workdir: workdir() });
    const bound = await callOk(session.client, 'spec_create', { name: 'first', content: 'Add a README', loop_id: loop.id });
    const backlog = await callOk(session.client, 'spec_create', { name: 'later' });
    assert.equal(bound.loop_id, loop.id);
    assert.equal(backlog.loop_id, null);
    const ofLoop = await callOk(session.client, 'spec_list', { loop_id: loop.id });
    assert.deepEqual(
      ofLoop.specs.map((spec: { id: string }) => spec.id),
      [bound.id],
    );
    const inBacklog = await callOk(session.client, 'spec_list', { backlog: true });
    assert.ok(inBacklog.specs.some((spec: { id: string }) => spec.id === backlog.id));
  });

  it('records a self-report on the run its token names: the run_token argument, or CANOPY_RUN_TOKEN by default', async () => {
    const loop = await callOk(session.client, 'loop_create', { name: 'reporting', workdir: workdir() });
    const running = (token: string) =>
      insertNodeRun(ctx.db, {
        loop_id: loop.id,
        node_name: 'implement',
        kind: 'agent',
        round: 1,
        status: 'running',
        run_token_hash: hashRunToken(token),
      });
    const fromEnv = await running(ENV_RUN_TOKEN);
    const fromArgument = await running('token-given-as-argument');

    assert.equal((await callOk(session.client, 'loop_complete_node', { status: 'fail', output: 'tests fail' })).run_id, fromEnv.id);
    assert.equal(
      (await callOk(session.client, 'loop_complete_node', { status: 'pass', run_token: 'token-given-as-argument' })).run_id,
      fromArgument.id,
    );
    assert.deepEqual(pick(await getNodeRun(ctx.db, fromEnv.id)), { reported_status: 'fail', reported_output: 'tests fail' });
    assert.deepEqual(pick(await getNodeRun(ctx.db, fromArgument.id)), { reported_status: 'pass', reported_output: null });
    assert.match(await callRefused(session.client, 'loop_complete_node', { status: 'pass', run_token: 'unknown' }), /matches no node run/);
  });

  it('wrote nothing but protocol messages on stdout', () => {
    assert.deepEqual(session.errors, [], session.stderr());
  });
});

function pick(run: { reported_status: string | null; reported_output: string | null } | undefined) {
  return { reported_status: run?.reported_status, reported_output: run?.reported_output };
}
