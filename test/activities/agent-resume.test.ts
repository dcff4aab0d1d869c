// Which session an agent run continues, decided from the store: an agent only with resume: true, an ensemble
// member unless its own resume: false, each from a run of the same node in the same spec, on the same host, in the
// same directory, by the same CLI; a member only from its own last run, and only when that passed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadPlatforms, type Platform } from '../../src/agents';
import { resumePlan } from '../../src/activities/agent-resume';
import { createLoop } from '../../src/client/loops-service';
import { createSpec } from '../../src/client/specs-service';
import { activityDeps } from '../../src/daemon';
import type { NodeRun } from '../../src/domain/node-run';
import { insertNodeRun } from '../../src/store/node-runs-repository';
import { useTestStore } from '../helpers/store';

const store = useTestStore();

describe('resuming an agent run', () => {
  const claude = (): Platform => loadPlatforms(store.ctx.config.home).get('claude')!;
  const deps = () => activityDeps(store.ctx, 'http://127.0.0.1:9/mcp');

  /** A loop and spec, and a recorder of runs of `node` in it: earlier ones (with their fields), then the one deciding. */
  async function place(name: string) {
    const workdir = store.workdir();
    const loop = await createLoop(store.ctx, { name, workdir });
    const spec = await createSpec(store.ctx, { loop_id: loop.id, name: 'the spec', content: '' });
    let minute = 0;
    const run = (node: string, fields: Partial<NodeRun> = {}) =>
      insertNodeRun(store.ctx.db, {
        loop_id: loop.id,
        spec_id: spec.id,
        node_name: node,
        kind: 'agent',
        round: 1,
        status: 'pass',
        executed_platform: 'claude',
        executed_host: store.ctx.config.hostId,
        session_workdir: workdir,
        started_at: new Date(Date.UTC(2026, 0, 1, 0, minute++)).toISOString(),
        ...fields,
      });
    return { workdir, run };
  }

  it('continues the node’s newest session in the spec when the config says resume: true, and never without it', async () => {
    const { workdir, run } = await place('agent');
    await run('implement', { session_id: 'older' });
    await run('implement', { session_id: 'newer' });
    await run('implement', { session_id: null, status: 'fail' });
    await run('review', { session_id: 'another node' });
    const now = await run('implement');
    assert.deepEqual(await resumePlan(deps(), now, { resume: true }, claude(), workdir), { session: 'newer', coldReason: null });
    assert.deepEqual(await resumePlan(deps(), now, {}, claude(), workdir), { session: null, coldReason: null });
    assert.deepEqual(await resumePlan(deps(), now, { resume: false }, claude(), workdir), { session: null, coldReason: null });
  });

  it('starts cold, saying why, with no session recorded, another host, another directory or another CLI', async () => {
    const first = await place('first');
    assert.deepEqual(await resumePlan(deps(), await first.run('implement'), { resume: true }, claude(), first.workdir), {
      session: null,
      coldReason: 'no earlier run of this node in this spec recorded a session',
    });
    const cases: [Partial<NodeRun>, RegExp][] = [
      [{ executed_host: 'elsewhere' }, /^session s1 is on host elsewhere; this run is on /],
      [{ session_workdir: '/somewhere/else' }, /^session s1 worked in \/somewhere\/else; this run works in /],
      [{ executed_platform: 'codex' }, /^session s1 is codex's; this run uses claude$/],
    ];
    for (const [index, [fields, reason]] of cases.entries()) {
      const { workdir, run } = await place(`cold-${index}`);
      await run('implement', { session_id: 's1', ...fields });
      const plan = await resumePlan(deps(), await run('implement'), { resume: true }, claude(), workdir);
      assert.equal(plan.session, null);
      assert.match(plan.coldReason ?? '', reason);
    }
  });

  it('a platform whose sessions canopy cannot continue starts cold, saying so', async () => {
    const { workdir, run } = await place('custom');
    await run('implement', { session_id: 's1' });
    const custom = { ...claude(), name: 'mine', adapter: { ...claude().adapter, session: undefined } };
    assert.deepEqual(await resumePlan(deps(), await run('implement'), { resume: true }, custom, workdir), {
      session: null,
      coldReason: "platform 'mine' has no session canopy can continue",
    });
  });

  it('a member resumes its own last run by default, only when it passed, and never with its own resume: false', async () => {
    const { workdir, run } = await place('members');
    await run('panel/member-1', { session_id: 'm1' });
    await run('panel/member-2', { session_id: 'm2-passed' });
    await run('panel/member-2', { session_id: 'm2-failed', status: 'fail' });
    await run('panel/member-3', { session_id: null });
    const plan = async (member: string, config: { resume?: boolean } = {}) =>
      resumePlan(deps(), await run(member), config, claude(), workdir);
    assert.deepEqual(await plan('panel/member-1'), { session: 'm1', coldReason: null });
    assert.deepEqual(await plan('panel/member-2'), {
      session: null,
      coldReason: "this member's last run in this spec did not pass (fail)",
    });
    assert.match((await plan('panel/member-3')).coldReason ?? '', /^the last run \(nrun_\w+\) recorded no session$/);
    assert.deepEqual(await plan('panel/member-4'), { session: null, coldReason: 'no earlier run of this member in this spec' });
    assert.deepEqual(await plan('panel/member-1', { resume: false }), { session: null, coldReason: null });
  });
});
