// loop_schedule_autorun given an agent's usage-limit words instead of a time: it resumes a little after the
// reset, and refuses words with no time, a time more than a day away, or both forms at once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestAutorun } from '../../src/client/autorun-service';
import { nextClockTime, resumeAfterReset } from '../../src/agents/reset-time';
import { useEngineHarness } from '../helpers/engine';
import { check, loopWithSpecs, scratchDir } from '../helpers/loops';
import { assertRefused } from '../helpers/store';

describe(
  'autorun after a quota reset',
  { skip: !process.env.CANOPY_TEST_TEMPORAL_ADDRESS && 'needs the dev server `npm test` starts' },
  () => {
    const h = useEngineHarness();
    const loop = () => loopWithSpecs(h.ctx, scratchDir(), { nodes: [check('only', 1, 'true')] }, [{ name: 'later' }]);

    it('schedules the resume a margin after the reset the message names', async () => {
      const loopId = await loop();
      const state = await requestAutorun(h.ctx, loopId, {
        quota_reset_message: "You've hit your session limit · resets 3pm (Europe/Paris)",
      });
      const reset = nextClockTime('3pm', 'Europe/Paris', new Date())!;
      assert.equal(state.at, resumeAfterReset(reset));
      assert.equal((await requestAutorun(h.ctx, loopId, {})).at, null);
    });

    it('refuses a message without a reset time, one more than 24 h away, and both forms, naming the field', async () => {
      const loopId = await loop();
      await assertRefused(requestAutorun(h.ctx, loopId, { quota_reset_message: 'rate limited, sorry' }), {
        code: 'invalid_input',
        message: /^quota_reset_message: 'rate limited, sorry' names no reset time/,
      });
      await assertRefused(requestAutorun(h.ctx, loopId, { quota_reset_message: 'resets Dec 25, 2099 9am (UTC)' }), {
        code: 'invalid_input',
        message: /^quota_reset_message: .* more than 24 h away/,
      });
      await assertRefused(requestAutorun(h.ctx, loopId, { at: '2099-01-01T00:00:00Z', quota_reset_message: 'resets 3pm' }), {
        code: 'invalid_input',
        message: /^at, quota_reset_message: give one of them/,
      });
    });
  },
);
