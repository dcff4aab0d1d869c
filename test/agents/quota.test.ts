// The usage-limit messages each agent CLI prints, as found in its packaged sources, and the reset times read from them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { claudeOutage, claudeQuota } from '../../src/agents/claude';
import { codexOutage, codexQuota } from '../../src/agents/codex';
import { geminiOutage, geminiQuota } from '../../src/agents/gemini';
import { opencodeOutage } from '../../src/agents/opencode';
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

describe('provider outages', () => {
  it('claude: overloaded 529s, 500s and a connection error, but not a 429 or a work failure', () => {
    const overloaded =
      'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CZAZLPuVRisJc8oe4zrKo"}';
    assert.equal(claudeOutage(overloaded, null), overloaded);
    assert.match(claudeOutage('API Error: 529 Overloaded. This is a server-side issue, usually temporary', null) ?? '', /529 Overloaded/);
    assert.match(claudeOutage('API Error: 500 {"type":"error","error":{"type":"api_error"}}', null) ?? '', /^API Error: 500/);
    assert.equal(claudeOutage('API Error: Connection error.', null), 'API Error: Connection error.');
    assert.equal(claudeOutage('', 503), 'API Error: 503');
    assert.equal(claudeOutage('API Error: Request rejected (429) · rate limit', 429), null);
    assert.equal(claudeOutage('The tests fail with ECONNREFUSED on port 5432.', null), null);
  });

  it('codex: unexpected 5xx statuses, stream errors and high demand', () => {
    const unavailable =
      'unexpected status 503 Service Unavailable: Service Unavailable, url: https://chatgpt.com/backend-api/codex/responses';
    assert.equal(codexOutage(unavailable), unavailable);
    assert.match(codexOutage('stream error: exceeded retry limit, last status: 500 Internal Server Error') ?? '', /^stream error/);
    assert.match(codexOutage("We're currently experiencing high demand, which may cause temporary errors.") ?? '', /high demand/);
    assert.equal(codexOutage('unexpected status 401 Unauthorized: Missing bearer'), null);
    assert.equal(codexOutage("You've hit your usage limit."), null);
  });

  it('gemini: 503 UNAVAILABLE and 500 INTERNAL API errors', () => {
    const overloaded =
      '[API Error: got status: 503 Service Unavailable. {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}]';
    assert.equal(geminiOutage(overloaded), overloaded);
    assert.match(geminiOutage('{"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}') ?? '', /"code":500/);
    assert.equal(geminiOutage('RESOURCE_EXHAUSTED: You have exhausted your daily quota on this model.'), null);
  });

  it('opencode: an error event with a 5xx status or an overloaded message', () => {
    assert.equal(opencodeOutage([{ name: 'APIError', data: { message: 'Overloaded', statusCode: 529 } }], ''), '529 Overloaded');
    assert.equal(
      opencodeOutage([{ name: 'APIError', data: { message: '{"type":"overloaded_error","message":"Overloaded"}' } }], ''),
      '{"type":"overloaded_error","message":"Overloaded"}',
    );
    assert.match(
      opencodeOutage([{ name: 'UnknownError', data: { message: 'Unable to connect: ECONNREFUSED' } }], '') ?? '',
      /ECONNREFUSED/,
    );
    assert.equal(opencodeOutage([{ name: 'APIError', data: { message: 'Invalid API key', statusCode: 401 } }], ''), null);
    assert.equal(opencodeOutage([], ''), null);
  });
});
