// Event hooks on a real dev server: each event fires its command hook once with the event's values in
// the environment (never in the shell text) and its agent hook with the event's placeholders filled;
// a failed hook warns and never changes the loop's status.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { updateLoop } from '../../src/client/loops-service';
import { loopStatus } from '../../src/client/loop-status-service';
import { continueLoop, startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import type { LoopHooks } from '../../src/domain/hooks';
import type { NodeRun } from '../../src/domain/node-run';
import { getLoop } from '../../src/store/loops-repository';
import { loopWorkflowId } from '../../src/contract';
import { useEngineHarness } from '../helpers/engine';
import { agent, check, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';
import { waitUntil } from '../helpers/wait';

/** A command hook that writes every CANOPY_HOOK_* variable it got, as JSON, to `file`. */
function envDump(file: string): { command: string } {
  const script =
    'const e = Object.entries(process.env).filter(([k]) => k.startsWith("CANOPY_HOOK_")); console.log(JSON.stringify(Object.fromEntries(e)))';
  return { command: `${JSON.stringify(process.execPath)} -e '${script}' > ${JSON.stringify(file)}` };
}

const readEnv = (file: string): Record<string, string> => JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;

function hookRuns(runs: NodeRun[]): NodeRun[] {
  return runs.filter((run) => run.kind === 'hook');
}

describe('event hooks', () => {
  const h = useEngineHarness();
  /** `workdir` also holds what the hooks write for the test to read: a confined hook's /tmp is its own. */
  async function hooked(
    shape: Parameters<typeof loopWithSpecs>[2],
    specs: { name: string; content?: string }[],
    hooks: LoopHooks,
    workdir = scratchDir(),
  ) {
    const loopId = await loopWithSpecs(h.ctx, workdir, shape, specs);
    await updateLoop(h.ctx, { loop_id: loopId, hooks });
    return { loopId, workdir };
  }

  it('on_failed: fires each hook once with the failing node, kind, reason and spec; spec text never becomes shell code', async () => {
    const out = scratchDir();
    const specName = 'ship $(touch pwned) `touch pwned2`';
    const { loopId, workdir } = await hooked(
      { nodes: [check('tests', 1, 'echo broken >&2; exit 3')] },
      [{ name: specName }],
      {
        on_failed: [
          envDump(path.join(out, 'env.json')),
          { command: `echo "{{spec_name}}" > ${JSON.stringify(path.join(out, 'echoed.txt'))}` },
          { platform: 'fake', prompt: '@print {{loop_name}} failed at {{node}} [{{failure_kind}}] in {{spec_name}}: {{reason}}' },
        ],
      },
      out,
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'failed');
    assert.equal((await getLoop(h.ctx.db, loopId))!.status, 'failed', 'the hooks leave the status as it was');

    const hooks = hookRuns(await runsOf(h.ctx, loopId));
    assert.deepEqual(
      hooks.map((run) => [run.node_name, run.hook_event, run.hook_index, run.status]),
      [
        ['on_failed[0]', 'on_failed', 0, 'pass'],
        ['on_failed[1]', 'on_failed', 1, 'pass'],
        ['on_failed[2]', 'on_failed', 2, 'pass'],
      ],
    );
    const env = readEnv(path.join(out, 'env.json'));
    assert.deepEqual(
      { ...env, CANOPY_HOOK_REASON: undefined },
      {
        CANOPY_HOOK_EVENT: 'on_failed',
        CANOPY_HOOK_LOOP_NAME: 'engine test',
        CANOPY_HOOK_LOOP_ID: loopId,
        CANOPY_HOOK_WORKDIR: workdir,
        CANOPY_HOOK_NODE: 'tests',
        CANOPY_HOOK_FAILURE_KIND: 'exit_code',
        CANOPY_HOOK_REASON: undefined,
        CANOPY_HOOK_SPEC_NAME: specName,
      },
    );
    assert.equal(env.CANOPY_HOOK_REASON, result.reason);
    assert.equal(readFileSync(path.join(out, 'echoed.txt'), 'utf8'), `${specName}\n`);
    assert.ok(!existsSync(path.join(workdir, 'pwned')) && !existsSync(path.join(workdir, 'pwned2')), 'the spec name ran as shell code');
    assert.equal(hooks[2].input, `@print engine test failed at tests [exit_code] in ${specName}: ${result.reason}`);
    assert.equal(hooks[2].stdout.trim(), `engine test failed at tests [exit_code] in ${specName}: ${result.reason}`);
  });

  it('on_blocked: fires once per block, before the run waits, with the blocker, node and spec', async () => {
    const out = scratchDir();
    const { loopId } = await hooked(
      {
        nodes: [agent('needs_human', 1, '@block add the API key'), check('next', 2, 'true')],
        edges: [{ source: 'needs_human', target: 'next' }],
      },
      [{ name: 'wire it' }],
      {
        on_blocked: [
          {
            command: `echo "$CANOPY_HOOK_BLOCKER|$CANOPY_HOOK_NODE|$CANOPY_HOOK_SPEC_NAME" >> ${JSON.stringify(path.join(out, 'blocks'))}`,
          },
          { platform: 'fake', prompt: '@print {{node}} blocked {{spec_name}}: {{blocker}}' },
        ],
      },
      out,
    );
    const blockHooks = async () => hookRuns(await runsOf(h.ctx, loopId)).filter((run) => run.ended_at);
    const result = await h.withWorker(async () => {
      await startLoopRun(h.ctx, loopId);
      await waitUntil('the first block’s hooks', async () => (await blockHooks()).length === 2);
      assert.equal((await getLoop(h.ctx.db, loopId))!.status, 'blocked');
      await continueLoop(h.ctx, loopId, 'retry');
      await waitUntil('the second block’s hooks', async () => (await blockHooks()).length === 4);
      await continueLoop(h.ctx, loopId, 'skip');
      return waitForLoopRun(h.ctx, loopId);
    });
    assert.equal(result.status, 'completed');
    const hooks = hookRuns(await runsOf(h.ctx, loopId));
    assert.deepEqual(
      hooks.map((run) => run.node_name),
      ['on_blocked[0]', 'on_blocked[1]', 'on_blocked[0]', 'on_blocked[1]'],
    );
    assert.equal(readFileSync(path.join(out, 'blocks'), 'utf8'), 'add the API key|needs_human|wire it\n'.repeat(2));
    assert.equal(hooks[1].stdout.trim(), 'needs_human blocked wire it: add the API key');
  });

  it('on_spec_completed and on_completed: once per spec and once per run, with the specs completed so far', async () => {
    const out = scratchDir();
    const { loopId } = await hooked(
      { nodes: [check('only', 1, 'true')] },
      [
        { name: 'first', content: 'ship the thing' },
        { name: 'second', content: 'ship another' },
      ],
      {
        on_spec_completed: [
          {
            command: `printf '%s\\n' "$CANOPY_HOOK_SPEC_NAME $CANOPY_HOOK_SPEC_ID" "$CANOPY_HOOK_COMPLETED_SPECS" >> ${JSON.stringify(path.join(out, 'specs'))}`,
          },
          { platform: 'fake', prompt: '@print spec {{spec_name}} ({{spec_id}}) done in {{loop_name}}' },
        ],
        on_completed: [
          envDump(path.join(out, 'completed.json')),
          { platform: 'fake', prompt: '@print {{loop_id}} {{workdir}}\n{{completed_specs}}' },
        ],
      },
      out,
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed');
    const [first, second] = result.completedSpecIds;
    const hooks = hookRuns(await runsOf(h.ctx, loopId));
    assert.deepEqual(
      hooks.map((run) => [run.node_name, run.spec_id]),
      [
        ['on_spec_completed[0]', first],
        ['on_spec_completed[1]', first],
        ['on_spec_completed[0]', second],
        ['on_spec_completed[1]', second],
        ['on_completed[0]', null],
        ['on_completed[1]', null],
      ],
    );
    assert.equal(
      readFileSync(path.join(out, 'specs'), 'utf8'),
      `first ${first}\nfirst: ship the thing\nsecond ${second}\nfirst: ship the thing\nsecond: ship another\n`,
    );
    assert.equal(hooks[3].stdout.trim(), `spec second (${second}) done in engine test`);
    const env = readEnv(path.join(out, 'completed.json'));
    assert.equal(env.CANOPY_HOOK_EVENT, 'on_completed');
    assert.equal(env.CANOPY_HOOK_COMPLETED_SPECS, 'first: ship the thing\nsecond: ship another');
    assert.equal(env.CANOPY_HOOK_NODE, undefined, 'only the event’s own values');
    const loop = (await getLoop(h.ctx.db, loopId))!;
    assert.equal(hooks[5].input, `@print ${loopId} ${loop.workdir}\nfirst: ship the thing\nsecond: ship another`);
    assert.equal((await loopStatus(h.ctx, loopId)).last_run?.hook_fired, true);
  });

  it('a failing hook warns in loop info, the next hook still runs, and the loop stays completed', async () => {
    const out = scratchDir();
    const { loopId } = await hooked(
      { nodes: [check('only', 1, 'true')] },
      [{ name: 'spec' }],
      {
        on_completed: [
          { command: 'echo token=ghp_abcdefghijklmnopqrstuvwxyz0123 >&2; exit 7' },
          { command: `touch ${JSON.stringify(path.join(out, 'ran'))}` },
        ],
      },
      out,
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed');
    const report = await loopStatus(h.ctx, loopId);
    assert.equal(report.status, 'completed');
    assert.deepEqual(
      report.last_run?.hook_runs.map((run) => [run.hook, run.status]),
      [
        ['on_completed[0]', 'fail'],
        ['on_completed[1]', 'pass'],
      ],
    );
    assert.ok(existsSync(path.join(out, 'ran')));
    const [warning] = report.warnings;
    assert.match(warning, /^hook on_completed\[0\] failed: .*7.*canopy loop run-get nrun_/);
  });

  it('schedules no hook activity for an event the loop has no hook for', async () => {
    const { loopId } = await hooked({ nodes: [check('only', 1, 'true')] }, [{ name: 'spec' }], { on_failed: [{ command: 'true' }] });
    assert.equal((await h.withWorker(() => runToEnd(h.ctx, loopId))).status, 'completed');
    const history = await (await h.ctx.temporal()).workflow.getHandle(loopWorkflowId(loopId)).fetchHistory();
    const activities = (history.events ?? []).flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    assert.ok(activities.length > 0);
    assert.ok(!activities.includes('runHooks'), `scheduled: ${activities.join(', ')}`);
    assert.equal(hookRuns(await runsOf(h.ctx, loopId)).length, 0);
  });
});
