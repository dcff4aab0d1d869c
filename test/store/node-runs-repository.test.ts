// The node-runs repository records executions and finds them again, on both dialects.
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import {
  agentUsageByLoop,
  agentUsageBySpec,
  deleteNode,
  endedNodeRunIds,
  endRunningNodeRuns,
  findNodeRunByKey,
  getNodeRun,
  getNodeRunByTokenHash,
  getSpec,
  insertNode,
  insertNodeRun,
  insertSpec,
  isUniqueViolation,
  latestDirtyPathsRecord,
  latestNodeRunOfEachLoop,
  listNodeRuns,
  sessionTokensElsewhere,
  newId,
  updateNodeRun,
  type NewNodeRun,
} from '../../src/store';
import { describeOnEachDialect, insertTestLoop } from '../helpers/store-dialects';

describeOnEachDialect('node-runs repository', (store) => {
  let loopId: string;
  let nodeId: string;
  let specId: string;
  beforeEach(async () => {
    loopId = (await insertTestLoop(store.db)).id;
    nodeId = newId('node');
    await insertNode(store.db, {
      id: nodeId,
      loop_id: loopId,
      name: 'build',
      kind: 'check',
      position: 1,
      config: { command: 'make' },
      ensemble_id: null,
      member_index: null,
    });
    specId = (await insertSpec(store.db, { name: 's', content: '', loop_id: loopId, workdir: null })).id;
  });

  const run = (changes: Partial<NewNodeRun> = {}): NewNodeRun => ({
    loop_id: loopId,
    spec_id: specId,
    node_id: nodeId,
    node_name: 'build',
    kind: 'check',
    workflow_id: 'wf-1',
    round: 1,
    ...changes,
  });

  it('inserts a running run with defaults and reads it back', async () => {
    const inserted = await insertNodeRun(store.db, run({ input: 'make' }));
    assert.match(inserted.id, /^nrun_[0-9a-z]{12}$/);
    assert.deepEqual(inserted, {
      id: inserted.id,
      loop_id: loopId,
      spec_id: specId,
      node_id: nodeId,
      node_name: 'build',
      kind: 'check',
      workflow_id: 'wf-1',
      round: 1,
      attempt: 1,
      infra_attempt: 1,
      activity_attempt: 1,
      status: 'running',
      outcome: null,
      failure_kind: null,
      reason: null,
      input: 'make',
      stdout: '',
      stderr: '',
      exit_code: null,
      reported_status: null,
      reported_output: null,
      unreported: false,
      executed_platform: null,
      executed_model: null,
      input_tokens: null,
      cached_input_tokens: null,
      output_tokens: null,
      cost_usd: null,
      executed_host: null,
      head_before: null,
      head_after: null,
      pgid: null,
      stale: false,
      started_at: inserted.started_at,
      ended_at: null,
      attempts: [],
      recovery: null,
      dirty_paths: null,
      deadline: null,
      decided_by: null,
      decided_at: null,
      human_feedback: null,
      session_id: null,
      session_workdir: null,
      resumed: false,
      cold_start_reason: null,
      hook_event: null,
      hook_index: null,
    });
    assert.deepEqual(await getNodeRun(store.db, inserted.id), inserted);
  });

  it('keeps NUL bytes whole in any text, and the character PostgreSQL escapes them with, and finds text holding them', async () => {
    // U+FDD0 is the escape on PostgreSQL: alone, doubled and before a '0' it must come back as written.
    const texts = { input: 'a\0b', stdout: '\0\0', stderr: '\uFDD0', reason: '\uFDD00', reported_output: '\uFDD0\uFDD0\0' };
    const inserted = await insertNodeRun(store.db, run({ ...texts, run_key: 'key\0' }));
    assert.deepEqual((await getNodeRun(store.db, inserted.id))!, { ...inserted, ...texts });
    assert.equal((await findNodeRunByKey(store.db, 'key\0'))?.id, inserted.id);
    assert.equal(await findNodeRunByKey(store.db, 'key'), undefined);
    const spec = await insertSpec(store.db, { name: 'nul\0name', content: 'c\0', loop_id: loopId, workdir: null });
    assert.deepEqual([(await getSpec(store.db, spec.id))?.name, (await getSpec(store.db, spec.id))?.content], ['nul\0name', 'c\0']);
  });

  it('tells which of a list of ids name runs that have ended', async () => {
    const running = await insertNodeRun(store.db, run());
    const passed = await insertNodeRun(store.db, run({ status: 'pass' }));
    const cancelled = await insertNodeRun(store.db, run({ status: 'cancelled' }));
    const ended = await endedNodeRunIds(store.db, [running.id, passed.id, cancelled.id, 'nrun_missing']);
    assert.deepEqual(ended.sort(), [passed.id, cancelled.id].sort());
    assert.deepEqual(await endedNodeRunIds(store.db, []), []);
  });

  it('ends the running runs, returning only the process groups recorded on the given host or before hosts', async () => {
    const here = await insertNodeRun(store.db, run({ pgid: 101, executed_host: 'host-a' }));
    const beforeHosts = await insertNodeRun(store.db, run({ pgid: 102 }));
    const elsewhere = await insertNodeRun(store.db, run({ pgid: 103, executed_host: 'host-b' }));
    const ended = await insertNodeRun(store.db, run({ pgid: 104, executed_host: 'host-a', status: 'pass' }));
    const groups = await endRunningNodeRuns(
      store.db,
      loopId,
      { status: 'cancelled', failure_kind: 'stopped', reason: 'stopped' },
      'host-a',
    );
    assert.deepEqual(
      groups.sort((a, b) => a - b),
      [101, 102],
    );
    for (const { id } of [here, beforeHosts, elsewhere]) {
      assert.deepEqual([(await getNodeRun(store.db, id))?.status, (await getNodeRun(store.db, id))?.pgid], ['cancelled', null]);
    }
    assert.equal((await getNodeRun(store.db, ended.id))?.status, 'pass');
  });

  it('records the end of a run', async () => {
    const inserted = await insertNodeRun(store.db, run({ pgid: 4242, head_before: 'a1b2' }));
    const ended = {
      status: 'fail',
      outcome: 'fail',
      failure_kind: 'exit_code',
      reason: 'exit code 2',
      stdout: 'x'.repeat(100_000),
      stderr: 'boom',
      exit_code: 2,
      reported_status: 'fail',
      reported_output: 'could not build',
      unreported: true,
      stale: true,
      head_after: 'a1b2',
      ended_at: new Date().toISOString(),
    } as const;
    const updated = await updateNodeRun(store.db, inserted.id, ended);
    assert.deepEqual(updated, { ...inserted, ...ended });
    assert.equal(await updateNodeRun(store.db, 'nrun_missing', { status: 'pass' }), undefined);
  });

  it('lists a loop’s runs newest first, filtered by node and spec and paged by the run before, 20 by default and at most 201', async () => {
    const otherSpec = (await insertSpec(store.db, { name: 'other', content: '', loop_id: loopId, workdir: null })).id;
    const base = Date.parse('2025-01-01T00:00:00.000Z');
    for (let i = 0; i < 205; i++) {
      await insertNodeRun(
        store.db,
        run({ round: i, spec_id: i % 2 ? otherSpec : specId, started_at: new Date(base + i * 1000).toISOString() }),
      );
    }
    const newest = await listNodeRuns(store.db, { loopId });
    assert.deepEqual(
      newest.map((r) => r.round),
      Array.from({ length: 20 }, (_, i) => 204 - i),
    );
    assert.equal((await listNodeRuns(store.db, { loopId, limit: 1000 })).length, 201, 'a page of 200 and the run that says more follow');
    const [, second] = newest;
    assert.deepEqual(
      (await listNodeRuns(store.db, { loopId, before: second, limit: 2 })).map((r) => r.round),
      [202, 201],
    );
    assert.deepEqual(
      (await listNodeRuns(store.db, { loopId, specId: otherSpec, limit: 3 })).map((r) => r.round),
      [203, 201, 199],
    );
    assert.equal((await listNodeRuns(store.db, { loopId, nodeId: 'node_other' })).length, 0);
    assert.equal((await listNodeRuns(store.db, { loopId, nodeId })).length, 20);
  });

  it('finds the record of one execution by its run key, and keeps that key unique', async () => {
    assert.equal(await findNodeRunByKey(store.db, 'run-1:spec:build:1'), undefined);
    const inserted = await insertNodeRun(store.db, run({ run_key: 'run-1:spec:build:1' }));
    await insertNodeRun(store.db, run({ run_key: 'run-1:spec:build:2' }));
    await insertNodeRun(store.db, run());
    await insertNodeRun(store.db, run());
    assert.deepEqual(await findNodeRunByKey(store.db, 'run-1:spec:build:1'), inserted);
    await assert.rejects(insertNodeRun(store.db, run({ run_key: 'run-1:spec:build:1' })), isUniqueViolation);
  });

  it('sums what agent runs used per spec, leaving out runs of no agent', async () => {
    const other = (await insertSpec(store.db, { name: 't', content: '', loop_id: loopId, workdir: null })).id;
    const agentRun = (spec: string | null, input_tokens: number, output_tokens: number, cost_usd: number | null) =>
      insertNodeRun(store.db, run({ spec_id: spec, kind: 'agent', executed_platform: 'claude', input_tokens, output_tokens, cost_usd }));
    await agentRun(specId, 100, 10, 0.5);
    await agentRun(specId, 200, 20, null);
    await agentRun(other, 7, 3, 0.25);
    await insertNodeRun(store.db, run({ input_tokens: 999 }));
    const usage = await agentUsageBySpec(store.db, loopId);
    assert.deepEqual(
      usage.sort((a, b) => (a.spec_id === specId ? -1 : b.spec_id === specId ? 1 : 0)),
      [
        { spec_id: specId, agent_runs: 2, input_tokens: 300, output_tokens: 30, cost_usd: 0.5 },
        { spec_id: other, agent_runs: 1, input_tokens: 7, output_tokens: 3, cost_usd: 0.25 },
      ],
    );
  });

  it('sums what agent runs used per loop, all loops in one query, leaving out runs of no agent and loops no agent ran for', async () => {
    const other = (await insertTestLoop(store.db, 'other-loop')).id;
    const idle = (await insertTestLoop(store.db, 'idle-loop')).id;
    const agentRun = (loop: string, input_tokens: number, output_tokens: number, cost_usd: number | null) =>
      insertNodeRun(store.db, run({ loop_id: loop, kind: 'agent', executed_platform: 'claude', input_tokens, output_tokens, cost_usd }));
    await agentRun(loopId, 100, 10, 0.5);
    await agentRun(loopId, 200, 20, null);
    await agentRun(other, 7, 3, 0.25);
    await insertNodeRun(store.db, run({ input_tokens: 999 }));
    await insertNodeRun(store.db, run({ loop_id: idle, input_tokens: 999 }));
    const usage = await agentUsageByLoop(store.db);
    assert.deepEqual(Object.fromEntries(usage), {
      [loopId]: { agent_runs: 2, input_tokens: 300, output_tokens: 30, cost_usd: 0.5 },
      [other]: { agent_runs: 1, input_tokens: 7, output_tokens: 3, cost_usd: 0.25 },
    });
  });

  it("finds each loop's newest node run in one query, newest by start and then by id as the list orders them", async () => {
    const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;
    const other = (await insertTestLoop(store.db, 'other-loop')).id;
    await insertTestLoop(store.db, 'idle-loop');
    await insertNodeRun(store.db, run({ started_at: at(1), ended_at: at(2), status: 'pass' }));
    await insertNodeRun(store.db, run({ started_at: at(5), node_name: 'test', round: 2 }));
    await insertNodeRun(store.db, run({ started_at: at(3), node_name: 'lint' }));
    // Two runs of the other loop that started at once: the list shows the one of the greater id first.
    const twins = [
      await insertNodeRun(store.db, run({ loop_id: other, started_at: at(4), node_name: 'a' })),
      await insertNodeRun(store.db, run({ loop_id: other, started_at: at(4), node_name: 'b' })),
    ];
    const latest = await latestNodeRunOfEachLoop(store.db);
    assert.deepEqual([...latest.keys()].sort(), [loopId, other].sort(), 'a loop with no run is absent');
    assert.deepEqual(latest.get(loopId), {
      loop_id: loopId,
      node_name: 'test',
      round: 2,
      status: 'running',
      started_at: at(5),
      ended_at: null,
    });
    const [listed] = await listNodeRuns(store.db, { loopId: other, limit: 1 });
    assert.ok(twins.some((twin) => twin.id === listed.id));
    assert.equal(latest.get(other)?.node_name, listed.node_name);
  });

  it('keeps the dirty paths a run recorded and finds the latest record of them since a time', async () => {
    const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;
    const older = await insertNodeRun(store.db, run({ started_at: at(1) }));
    const clean = await insertNodeRun(store.db, run({ started_at: at(2) }));
    await insertNodeRun(store.db, run({ started_at: at(3), kind: 'gate' }));
    await updateNodeRun(store.db, older.id, { dirty_paths: ['a.txt', 'dir/'] });
    await updateNodeRun(store.db, clean.id, { dirty_paths: [] });
    assert.deepEqual((await getNodeRun(store.db, older.id))?.dirty_paths, ['a.txt', 'dir/']);
    assert.equal((await latestDirtyPathsRecord(store.db, loopId, at(0)))?.id, clean.id, 'a gate records none');
    assert.deepEqual((await latestDirtyPathsRecord(store.db, loopId, at(0)))?.dirty_paths, []);
    assert.equal(await latestDirtyPathsRecord(store.db, loopId, at(3)), undefined);
  });

  it('finds a run by the hash of its report token', async () => {
    const inserted = await insertNodeRun(store.db, run({ run_token_hash: 'hash-1' }));
    assert.deepEqual(await getNodeRunByTokenHash(store.db, 'hash-1'), inserted);
    assert.equal(await getNodeRunByTokenHash(store.db, 'hash-2'), undefined);
  });

  it('keeps a run, by node name, after its node is deleted', async () => {
    const inserted = await insertNodeRun(store.db, run());
    await deleteNode(store.db, nodeId);
    assert.deepEqual(await getNodeRun(store.db, inserted.id), { ...inserted, node_id: null });
  });

  it('sums the tokens the other runs of a CLI session recorded', async () => {
    const first = await insertNodeRun(
      store.db,
      run({ session_id: 'thread-1', input_tokens: 100, cached_input_tokens: 60, output_tokens: 10 }),
    );
    await insertNodeRun(store.db, run({ session_id: 'thread-1', input_tokens: 250, cached_input_tokens: 200, output_tokens: 20 }));
    await insertNodeRun(store.db, run({ session_id: 'thread-2', input_tokens: 999, cached_input_tokens: 9, output_tokens: 99 }));
    assert.deepEqual(await sessionTokensElsewhere(store.db, 'thread-1', first.id), { input: 250, cached: 200, output: 20 });
    assert.deepEqual(await sessionTokensElsewhere(store.db, 'thread-3', first.id), { input: 0, cached: 0, output: 0 });
  });
});
