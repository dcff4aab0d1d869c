// Redaction: one example per secret shape, text that must stay as it is, and secrets that straddle
// the cut of an excerpt or of {{previous_feedback}}.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXCERPT_LIMIT, excerpt, feedbackJson, FEEDBACK_OUTPUT_LIMIT } from '../../src/graph/feedback';
import { REDACTED, redact, SECRET_SHAPES } from '../../src/graph/redact';
import type { NodeRun } from '../../src/domain/node-run';
import { ANTHROPIC_KEY, PEM, PEM_BODY } from '../helpers/secrets';

/** For each shape: text holding a secret, and the secret, which must be gone after redaction. */
const EXAMPLES: Record<string, { text: string; secret: string; kept?: string }> = {
  'PEM private key block': { text: `key:\n${PEM}\ndone`, secret: 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcw', kept: 'done' },
  'PEM private key tail': {
    text: `…${PEM_BODY.slice(200)}\n-----END PRIVATE KEY-----\nafter`,
    secret: 'kiG9w0BAQEFAASCBKcw',
    kept: 'after',
  },
  'Anthropic/OpenAI-style key (sk-ant-…, sk-proj-…)': { text: `ANTHROPIC=${ANTHROPIC_KEY} x`, secret: 'Zx9yW8vU7tS6rQ5pO4nM' },
  'Stripe key (sk_live_…, rk_test_…)': { text: 'charge with sk_live_51HqLyjWDarjtT1zdp7dc now', secret: '51HqLyjWDarjtT1zdp7dc' },
  'GitHub token (ghp_…, gho_…)': { text: 'push ghp_abcdefghijklmnopqrstuvwxyz0123', secret: 'abcdefghijklmnopqrstuvwxyz0123' },
  'GitHub fine-grained token': { text: 'github_pat_11ABCDEFG0123456789_abcdefghijklmnop', secret: '11ABCDEFG0123456789' },
  'GitLab token (glpat-…)': { text: 'clone with glpat-xXyYzZ0123456789abcd', secret: 'xXyYzZ0123456789abcd' },
  'Hugging Face token (hf_…)': { text: 'login hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345', secret: 'AbCdEfGhIjKlMnOpQrStUvWxYz012345' },
  'npm token (npm_…)': { text: '//registry.npmjs.org/:_auth npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8', secret: 'a1B2c3D4e5F6g7H8i9J0' },
  'Slack token (xoxb-…)': { text: 'xoxb-1234567890-abcdefghij', secret: '1234567890-abcdefghij' },
  'AWS access key id': { text: 'id AKIAIOSFODNN7EXAMPLE here', secret: 'IOSFODNN7EXAMPLE' },
  'Google API key': { text: 'AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q', secret: 'SyA1b2C3d4E5f6G7h8I9j0' },
  'JSON Web Token': {
    text: 'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N',
    secret: 'dozjgNryP4J3jVmNHl0w5N',
  },
  'password in a URL (scheme://user:password@host)': {
    text: 'connect postgres://canopy:s3cr3t-pw@db.internal:5432/canopy',
    secret: 's3cr3t-pw',
    kept: 'postgres://canopy:[REDACTED]@db.internal:5432/canopy',
  },
  'value of a secret-named key (API_KEY=…, "token": "…", Authorization: Basic …)': {
    text: 'curl -H "Authorization: Basic dXNlcjpodW50ZXIy" https://x',
    secret: 'dXNlcjpodW50ZXIy',
    kept: 'Authorization: Basic [REDACTED]',
  },
  'bearer credential without its header': {
    text: '-H "X-Auth: Bearer abcdefghijklmnop0123456789"',
    secret: 'abcdefghijklmnop0123456789',
    kept: 'Bearer [REDACTED]',
  },
};

describe('redact', () => {
  it('has an example for every shape it knows', () => {
    assert.deepEqual(SECRET_SHAPES.map((s) => s.shape).sort(), Object.keys(EXAMPLES).sort());
  });

  for (const [shape, { text, secret, kept }] of Object.entries(EXAMPLES)) {
    it(`masks a ${shape}`, () => {
      const redacted = redact(text);
      assert.ok(!redacted.includes(secret), `${secret} is still in: ${redacted}`);
      assert.ok(redacted.includes(REDACTED), redacted);
      if (kept) assert.ok(redacted.includes(kept), `${kept} is not in: ${redacted}`);
    });
  }

  it('masks the other forms of secret-named keys and keeps the key', () => {
    assert.equal(redact('API_KEY=hunter2hunter2 next'), 'API_KEY=[REDACTED] next');
    assert.equal(redact('{"token": "abc123def456"}'), '{"token": "[REDACTED]"}');
    assert.equal(redact('Authorization: Bearer abc.def.ghi-123'), 'Authorization: Bearer [REDACTED]');
    assert.equal(redact('redis://:p4ssw0rd@cache:6379'), 'redis://:[REDACTED]@cache:6379');
  });

  it('stays linear on a megabyte of output built to make patterns backtrack', () => {
    const megabyte = 1_000_000;
    const base64Lines = 'QUJD'.repeat(megabyte / 4).replace(/(.{64})/g, '$1\n');
    for (const text of ['a'.repeat(megabyte), base64Lines, `token:${' '.repeat(megabyte)}`, `http://${'a'.repeat(megabyte)}:`]) {
      const started = Date.now();
      redact(text);
      assert.ok(Date.now() - started < 2_000, `redacting ${JSON.stringify(text.slice(0, 12))}… took ${Date.now() - started} ms`);
    }
  });

  it('leaves ordinary text alone', () => {
    for (const text of [
      'all 12 tests passed',
      'GET http://localhost:8080/path?q=1 200',
      'see https://user@example.com/repo',
      'sk-short',
      'password: abc',
      'Authorization: Basic',
      'npm_config_cache=/tmp',
    ]) {
      assert.equal(redact(text), text);
    }
  });
});

describe('cut text is redacted before the cut', () => {
  /** Text whose `secret` starts `offsetFromEnd` characters before the end, so an excerpt's tail starts inside it. */
  function straddling(secret: string, offsetFromEnd: number): string {
    const before = 'x'.repeat(EXCERPT_LIMIT * 2);
    return `${before} ${secret}${'y'.repeat(Math.max(0, offsetFromEnd - secret.length))}`;
  }

  it('an sk-ant- key cut by the excerpt shows no piece of it', () => {
    const text = straddling(ANTHROPIC_KEY, Math.floor(EXCERPT_LIMIT / 2) + 20);
    const cut = excerpt(text);
    assert.ok(cut.length <= EXCERPT_LIMIT + 40, 'the excerpt is short');
    assert.ok(!cut.includes(ANTHROPIC_KEY.slice(30, 46)), cut);
    assert.ok(!cut.includes(ANTHROPIC_KEY.slice(-20)), cut);
  });

  it('a PEM block cut by the excerpt shows no line of its body', () => {
    const cut = excerpt(`${'x'.repeat(EXCERPT_LIMIT * 2)}\n${PEM}\nthe end`);
    for (const line of PEM_BODY.split('\n')) assert.ok(!cut.includes(line.slice(-20)), `${line} shows in:\n${cut}`);
    assert.match(cut, /the end$/);
  });

  it('{{previous_feedback}} cuts its output only after redacting it', () => {
    const run = {
      node_name: 'n',
      outcome: 'fail',
      failure_kind: null,
      reason: null,
      reported_output: '',
      stderr: '',
    } as unknown as NodeRun;
    const stdout = `${'x'.repeat(FEEDBACK_OUTPUT_LIMIT)}\n${PEM}\n${'z'.repeat(FEEDBACK_OUTPUT_LIMIT / 2 - 100)}`;
    const feedback = JSON.parse(feedbackJson({ ...run, stdout })).output as string;
    for (const line of PEM_BODY.split('\n')) assert.ok(!feedback.includes(line.slice(-20)), `${line} shows`);
  });
});
