// max_stalled_rounds, infra_retries, allow_dirty_start and share_workdir through `canopy loop update` child processes and `canopy mcp`
// with the SDK's client: each option changes only its own setting, and every bad value is refused
// naming the field, changing nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listSpecs } from '../../src/client/specs-service';
import { getLoop } from '../../src/store/loops-repository';
import { getSpec } from '../../src/store/specs-repository';
import { childEnv, useEngineHarness } from '../helpers/engine';
import { canopySync } from '../helpers/processes';
import { check, loopWithSpecs, scratchDir } from '../helpers/loops';
import { callOk, callRefused, useMcpSession } from '../helpers/mcp-client';

describe(
  'loop settings through the CLI and MCP',
  { skip: !process.env.CANOPY_TEST_TEMPORAL_ADDRESS && 'needs the dev server `npm test` starts' },
  () => {
    const h = useEngineHarness();
    const canopy = (...args: string[]) => canopySync(childEnv(h.config), args);
    const session = useMcpSession(h);

    const settingsOf = async (loopId: string) => (await getLoop(h.ctx.db, loopId))?.settings;

    it('sets and clears --infra-retries, --infra-backoff-seconds and --allow-dirty-start, keeping the other settings', async () => {
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), { settings: { max_iterations: 4 }, nodes: [check('tests', 1, 'true')] }, []);
      for (const [args, settings] of [
        [['--infra-retries', '0'], { max_iterations: 4, infra_retries: 0 }],
        [['--allow-dirty-start'], { max_iterations: 4, infra_retries: 0, allow_dirty_start: true }],
        [['--no-allow-dirty-start', '--infra-retries', '3'], { max_iterations: 4, infra_retries: 3, allow_dirty_start: false }],
        [['--infra-backoff-seconds', '2'], { max_iterations: 4, infra_retries: 3, allow_dirty_start: false, infra_backoff_seconds: 2 }],
      ] as const) {
        const updated = canopy('loop', 'update', loopId, ...args);
        assert.equal(updated.status, 0, updated.stderr);
        assert.deepEqual(await settingsOf(loopId), settings, args.join(' '));
      }
      const shown = JSON.parse(canopy('loop', 'get', loopId, '--json').stdout);
      assert.deepEqual(shown.settings, { max_iterations: 4, infra_retries: 3, allow_dirty_start: false, infra_backoff_seconds: 2 });
    });

    it('sets and clears --share-workdir, and refuses a share_workdir over MCP that is not true or false', async () => {
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), { settings: { max_iterations: 4 }, nodes: [check('tests', 1, 'true')] }, []);
      for (const [flag, shared] of [
        ['--share-workdir', true],
        ['--no-share-workdir', false],
      ] as const) {
        const updated = canopy('loop', 'update', loopId, flag);
        assert.equal(updated.status, 0, updated.stderr);
        assert.deepEqual(await settingsOf(loopId), { max_iterations: 4, share_workdir: shared }, flag);
      }
      assert.match(
        await callRefused(session.client, 'loop_update', { loop_id: loopId, settings: { share_workdir: 'yes' } }),
        /must be true or false[^\n]* at settings\.share_workdir/,
      );
      assert.deepEqual(await settingsOf(loopId), { max_iterations: 4, share_workdir: false });
    });

    it('refuses bad values through the CLI, naming the field, and changes nothing', async () => {
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), { settings: { infra_retries: 1 }, nodes: [check('tests', 1, 'true')] }, []);
      for (const [flag, value, message] of [
        ['--infra-retries', '11', /settings\.infra_retries: must be at most 10/],
        ['--infra-retries', '-1', /settings\.infra_retries: must be at least 0/],
        ['--infra-retries', '1.5', /settings\.infra_retries: must be a whole number/],
        ['--infra-backoff-seconds', '0', /settings\.infra_backoff_seconds: must be at least 1/],
        ['--infra-backoff-seconds', '61', /settings\.infra_backoff_seconds: must be at most 60/],
        ['--infra-backoff-seconds', '2.5', /settings\.infra_backoff_seconds: must be a whole number of seconds, e\.g\. 5/],
      ] as const) {
        const refused = canopy('loop', 'update', loopId, flag, value, '--allow-dirty-start');
        assert.equal(refused.status, 2, value);
        assert.match(refused.stderr, /The loop is invalid; nothing was changed\./);
        assert.match(refused.stderr, message);
      }
      assert.deepEqual(await settingsOf(loopId), { infra_retries: 1 });
    });

    it('sets --idle-timeout-minutes, and refuses one that is not a positive number of minutes, changing nothing', async () => {
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('tests', 1, 'true')] }, []);
      const set = canopy('loop', 'update', loopId, '--idle-timeout-minutes', '7.5');
      assert.equal(set.status, 0, set.stderr);
      assert.deepEqual(await settingsOf(loopId), { idle_timeout_minutes: 7.5 });
      for (const [value, message] of [
        ['0', /settings\.idle_timeout_minutes: must be a positive number of minutes/],
        ['soon', /settings\.idle_timeout_minutes: /],
        ['2000', /settings\.idle_timeout_minutes: must be at most 1440 minutes/],
      ] as const) {
        const refused = canopy('loop', 'update', loopId, '--idle-timeout-minutes', value);
        assert.equal(refused.status, 2, value);
        assert.match(refused.stderr, message);
      }
      assert.deepEqual(await settingsOf(loopId), { idle_timeout_minutes: 7.5 });
      assert.match(
        await callRefused(session.client, 'loop_update', { loop_id: loopId, settings: { idle_timeout_minutes: -1 } }),
        /must be a positive number of minutes[^\n]* at settings\.idle_timeout_minutes/,
      );
    });

    it('sets --budget-usd and --budget-tokens, and refuses budgets that are not positive amounts, changing nothing', async () => {
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('tests', 1, 'true')] }, []);
      const set = canopy('loop', 'update', loopId, '--budget-usd', '2.5', '--budget-tokens', '300000');
      assert.equal(set.status, 0, set.stderr);
      assert.deepEqual(await settingsOf(loopId), { budget_usd: 2.5, budget_tokens: 300000 });
      for (const [args, message] of [
        [['--budget-usd', '0'], /settings\.budget_usd: must be more than 0 dollars/],
        [['--budget-usd', 'lots'], /settings\.budget_usd: /],
        [['--budget-tokens', '1.5'], /settings\.budget_tokens: must be a whole number of tokens/],
      ] as const) {
        const refused = canopy('loop', 'update', loopId, ...args);
        assert.equal(refused.status, 2, args.join(' '));
        assert.match(refused.stderr, message);
      }
      assert.match(
        await callRefused(session.client, 'loop_update', { loop_id: loopId, settings: { budget_tokens: -5 } }),
        /must be more than 0 tokens[^\n]* at settings\.budget_tokens/,
      );
      assert.deepEqual(await settingsOf(loopId), { budget_usd: 2.5, budget_tokens: 300000 });
    });

    it('sets and removes a spec’s budgets with spec create/update and spec_create/spec_update, refusing bad ones, changing nothing', async () => {
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('tests', 1, 'true')] }, []);
      const created = canopy('spec', 'create', '--loop', loopId, '--name', 'costly', '--content', 'x', '--budget-usd', '3', '--json');
      assert.equal(created.status, 0, created.stderr);
      const spec = JSON.parse(created.stdout) as { id: string; budget_usd: number; budget_tokens: number | null };
      assert.deepEqual([spec.budget_usd, spec.budget_tokens], [3, null]);
      const budgetsOf = async () => {
        const stored = await getSpec(h.ctx.db, spec.id);
        return [stored?.budget_usd, stored?.budget_tokens];
      };
      const updated = canopy('spec', 'update', spec.id, '--budget-usd', 'none', '--budget-tokens', '50000');
      assert.equal(updated.status, 0, updated.stderr);
      assert.deepEqual(await budgetsOf(), [null, 50000]);
      for (const [args, message] of [
        [['update', spec.id, '--budget-usd', '-1'], /budget_usd: must be more than 0 dollars/],
        [['update', spec.id, '--budget-tokens', 'many'], /budget_tokens: /],
        [
          ['create', '--loop', loopId, '--name', 'n', '--content', 'x', '--budget-tokens', '2.5'],
          /budget_tokens: must be a whole number of tokens/,
        ],
      ] as const) {
        const refused = canopy('spec', ...args);
        assert.equal(refused.status, 2, args.join(' '));
        assert.match(refused.stderr, message);
      }
      assert.match(
        await callRefused(session.client, 'spec_update', { spec_id: spec.id, budget_usd: 0 }),
        /must be more than 0 dollars[^\n]* at budget_usd/,
      );
      assert.match(
        await callRefused(session.client, 'spec_create', { loop_id: loopId, name: 'n', budget_tokens: 'lots' }),
        /at budget_tokens/,
      );
      assert.deepEqual(await budgetsOf(), [null, 50000]);
      assert.equal((await listSpecs(h.ctx, { loop_id: loopId })).length, 1, 'no refused spec was created');
      const viaMcp = await callOk(session.client, 'spec_update', { spec_id: spec.id, budget_usd: 1.25, budget_tokens: null });
      assert.equal(viaMcp.budget_usd, 1.25);
      assert.deepEqual(await budgetsOf(), [1.25, null]);
    });

    it('sets and removes --max-stalled-rounds, and refuses a watchdog outside 2 to 1000 from the CLI, MCP and a node config, changing nothing', async () => {
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), { settings: { max_iterations: 4 }, nodes: [check('tests', 1, 'true')] }, []);
      const set = canopy('loop', 'update', loopId, '--max-stalled-rounds', '3');
      assert.equal(set.status, 0, set.stderr);
      assert.deepEqual(await settingsOf(loopId), { max_iterations: 4, max_stalled_rounds: 3 });
      assert.match(canopy('loop', 'get', loopId).stdout, /max_stalled_rounds 3/);
      const range = 'must be a whole number of rounds from 2 to 1000 \\(a stall is a round that ends as the one before it did';
      for (const value of ['1', '1001', '2.5', 'often']) {
        const refused = canopy('loop', 'update', loopId, '--max-stalled-rounds', value);
        assert.equal(refused.status, 2, value);
        assert.match(refused.stderr, /The loop is invalid; nothing was changed\./);
        assert.match(refused.stderr, new RegExp(`settings\\.max_stalled_rounds: ${range}`), value);
      }
      assert.match(
        await callRefused(session.client, 'loop_update', { loop_id: loopId, settings: { max_stalled_rounds: 0 } }),
        new RegExp(`${range}[^\\n]* at settings\\.max_stalled_rounds`),
      );
      assert.deepEqual(await settingsOf(loopId), { max_iterations: 4, max_stalled_rounds: 3 });

      const config = (watchdog: unknown) => JSON.stringify({ command: 'true', max_stalled_rounds: watchdog });
      const addedBad = canopy('loop', 'node', 'add', loopId, '--name', 'head', '--kind', 'check', '--config', config(1));
      assert.equal(addedBad.status, 2, addedBad.stderr);
      assert.match(addedBad.stderr, new RegExp(`max_stalled_rounds: ${range}`));
      assert.match(
        await callRefused(session.client, 'loop_add_node', {
          loop_id: loopId,
          name: 'head',
          kind: 'check',
          config: JSON.parse(config(2000)),
        }),
        new RegExp(`config\\.max_stalled_rounds: ${range}`),
      );
      assert.deepEqual(
        (await callOk(session.client, 'loop_get', { loop_id: loopId })).nodes.map((node: { name: string }) => node.name),
        ['tests'],
        'no refused node was added',
      );
      const added = canopy('loop', 'node', 'add', loopId, '--name', 'head', '--kind', 'check', '--config', config(2));
      assert.equal(added.status, 0, added.stderr);

      const removed = canopy('loop', 'update', loopId, '--no-max-stalled-rounds');
      assert.equal(removed.status, 0, removed.stderr);
      assert.deepEqual(await settingsOf(loopId), { max_iterations: 4 });
    });

    it('sets allow_dirty_start and infra_retries over MCP, shows them in loop_get, and refuses bad values', async () => {
      const loopId = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('tests', 1, 'true')] }, []);
      for (const [settings, message] of [
        [{ allow_dirty_start: 'yes' }, /must be true or false[^\n]* at settings\.allow_dirty_start/],
        [{ infra_retries: 11 }, /must be at most 10[^\n]* at settings\.infra_retries/],
        [{ allow_dirty_start: true, infra_retries: 'two' }, /at settings\.infra_retries/],
      ] as const) {
        assert.match(await callRefused(session.client, 'loop_update', { loop_id: loopId, settings }), message);
      }
      assert.deepEqual(await settingsOf(loopId), {});
      await callOk(session.client, 'loop_update', { loop_id: loopId, settings: { allow_dirty_start: true, infra_retries: 0 } });
      const loop = await callOk(session.client, 'loop_get', { loop_id: loopId });
      assert.deepEqual(loop.settings, { allow_dirty_start: true, infra_retries: 0 });
    });
  },
);
