// Secret-shaped substrings, masked before node-run output leaves canopy: in the excerpts the
// workflow history carries, and in everything the CLI and MCP show. Pure, so activities, the
// client and graph/ share the one table.

export const REDACTED = '[REDACTED]';

interface SecretShape {
  /** What the pattern finds, for tests and for whoever adds the next shape. */
  shape: string;
  /**
   * Matches exactly the secret; lookbehinds keep the key or scheme in front of it readable. Their
   * repetitions are bounded and no pattern nests quantifiers, so megabytes of output stay linear.
   */
  pattern: RegExp;
}

/** An HTTP auth scheme names how the credential is encoded; the credential is what follows it. */
const SCHEME = String.raw`(?:basic|bearer|digest|token)\s`;

export const SECRET_SHAPES: readonly SecretShape[] = [
  // A block cut short (no END line) is masked to the end of the text: its body is the secret.
  {
    shape: 'PEM private key block',
    pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$(?![\s\S]))/g,
  },
  // The tail of a block whose BEGIN line was cut away, as a stored excerpt may hold.
  // Starts only where a run of base64 lines starts, so each character is scanned once.
  { shape: 'PEM private key tail', pattern: /(?<![A-Za-z0-9+/=\r\n])[A-Za-z0-9+/=\r\n]*-----END [A-Z0-9 ]*PRIVATE KEY-----/g },
  { shape: 'Anthropic/OpenAI-style key (sk-ant-…, sk-proj-…)', pattern: /\b(?:sk|pk|rk)-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}/g },
  { shape: 'Stripe key (sk_live_…, rk_test_…)', pattern: /\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{10,}/g },
  { shape: 'GitHub token (ghp_…, gho_…)', pattern: /\bgh[pousr]_[A-Za-z0-9]{20,}/g },
  { shape: 'GitHub fine-grained token', pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/g },
  { shape: 'GitLab token (glpat-…)', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { shape: 'Hugging Face token (hf_…)', pattern: /\bhf_[A-Za-z0-9]{20,}/g },
  { shape: 'npm token (npm_…)', pattern: /\bnpm_[A-Za-z0-9]{20,}/g },
  { shape: 'Slack token (xoxb-…)', pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { shape: 'AWS access key id', pattern: /\bAKIA[0-9A-Z]{16}\b/g },
  { shape: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { shape: 'JSON Web Token', pattern: /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g },
  {
    shape: 'password in a URL (scheme://user:password@host)',
    pattern: /(?<=\b[a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/?#@]{0,256}:)[^\s/?#@]+(?=@)/gi,
  },
  {
    shape: 'value of a secret-named key (API_KEY=…, "token": "…", Authorization: Basic …)',
    pattern: new RegExp(
      String.raw`(?<=\b[A-Za-z0-9_]{0,64}(?:api[_-]?key|secret|token|password|passwd|authorization)[A-Za-z0-9_-]{0,64}"?\s{0,8}[:=]\s{0,8}"?(?:${SCHEME}\s{0,8})?)` +
        String.raw`(?!${SCHEME})[^\s"',;]{6,}`,
      'gi',
    ),
  },
  { shape: 'bearer credential without its header', pattern: new RegExp(String.raw`(?<=\bbearer\s{1,8})[A-Za-z0-9._~+/-]{16,}=*`, 'gi') },
];

export function redact(text: string): string {
  return SECRET_SHAPES.reduce((result, { pattern }) => result.replace(pattern, REDACTED), text);
}

/** Redacts every string field of a record (one level deep is all node runs have). */
export function redactFields<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, typeof value === 'string' ? redact(value) : value])) as T;
}
