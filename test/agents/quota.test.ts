// The usage-limit messages each agent CLI prints, as found in its packaged sources, and the reset times read from them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { claudeQuota } from '../../src/agents/claude';
import { codexQuota } from '../../src/agents/codex';
import { geminiQuota } from '../../src/agents/gemini';
import { nextClockTime } from '../../src/agents/reset-time';

const NOW = new Date('2026-12-01T08:00:00Z');

describe('usage-limit messages', () => {
  it('claude: subscription limits with a reset time in a named zone, the legacy epoch form, and an API 429', () => {
    assert.equal(
      claudeQuota("You've hit your session limit · resets 3pm (Europe/Paris)", false, NOW)?.resetAt?.toISOString(),
      '2026-12-01T14:00:00.000Z',
    );
    assert.equal(
      claudeQuota('You’ve hit your weekly limit · resets Dec 3, 9am (UTC)', false, NOW)?.resetAt?.toISOString(),
      '2026-12-03T09:00:00.000Z',
    );
    assert.equal(claudeQuota('Claude AI usage limit reached|1796130000', false, NOW)?.resetAt?.getTime(), 1796130000_000);
    assert.equal(
      claudeQuota('Claude usage limit reached. Your limit will reset at 9am (America/Chicago).', false, NOW)?.resetAt?.toISOString(),
      '2026-12-01T15:00:00.000Z',
    );
    const api = claudeQuota("API Error: Request rejected (429) · This request would exceed your account's rate limit.", false, NOW);
    assert.deepEqual([api?.resetAt, /429/.test(api?.message ?? '')], [null, true]);
    assert.equal(claudeQuota('Error: something else', false, NOW), null);
  });

  it('codex: "try again at" a clock time, later today or tomorrow, or with a date', () => {
    const text = (at: string) => `You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro) or try again at ${at}.`;
    const zone = process.env.TZ;
    process.env.TZ = 'UTC';
    try {
      assert.equal(codexQuota(text('8:41 AM'), NOW)?.resetAt?.toISOString(), '2026-12-01T08:41:00.000Z');
      assert.equal(codexQuota(text('7:15 AM'), NOW)?.resetAt?.toISOString(), '2026-12-02T07:15:00.000Z');
      assert.equal(codexQuota(text('Dec 4th, 2026 1:05 PM'), NOW)?.resetAt?.toISOString(), '2026-12-04T13:05:00.000Z');
    } finally {
      process.env.TZ = zone;
    }
    assert.equal(
      codexQuota("You've hit your usage limit. Upgrade to Pro or try again in 2 days 17 hours 14 minutes.", NOW)?.resetAt?.toISOString(),
      '2026-12-04T01:14:00.000Z',
    );
    assert.equal(codexQuota('stream error: 500', NOW), null);
  });

  it('gemini: terminal quota errors with the wait the API suggests', () => {
    const daily =
      'TerminalQuotaError: You have exhausted your daily quota on this model.\n  message: "You exceeded your current quota… Please retry in 3597s."';
    assert.equal(geminiQuota(daily, NOW)?.resetAt?.toISOString(), '2026-12-01T08:59:57.000Z');
    assert.equal(
      geminiQuota('You have exhausted your capacity on this model. Your quota will reset after 1h2m3s.', NOW)?.resetAt?.toISOString(),
      '2026-12-01T09:02:03.000Z',
    );
    assert.equal(geminiQuota('You have exhausted your daily quota on this model.', NOW)?.resetAt, null);
    assert.equal(geminiQuota('Invalid auth method selected.', NOW), null);
  });

  it('reads clock times in a zone across midnight and refuses what is no time', () => {
    assert.equal(nextClockTime('12am', 'America/New_York', NOW)?.toISOString(), '2026-12-02T05:00:00.000Z');
    assert.equal(nextClockTime('13pm', 'UTC', NOW), null);
    assert.equal(nextClockTime('3pm', 'Mars/Olympus', NOW), null);
  });
});
