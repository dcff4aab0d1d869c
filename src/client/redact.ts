// Secret-shaped substrings are masked whenever node-run output leaves canopy through the CLI or MCP.

const SECRET_PATTERNS: RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\b(?:sk|pk|rk)-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g,
];

/** `KEY=value` and `"token": "value"` where the key names a secret: the value is masked, the key kept. */
const SECRET_ASSIGNMENT =
  /\b([A-Za-z0-9_]*(?:api[_-]?key|secret|token|password|passwd|authorization)[A-Za-z0-9_]*)("?\s*[:=]\s*"?)(?:Bearer\s+)?([^\s"',;]{6,})/gi;

export const REDACTED = '[REDACTED]';

export function redact(text: string): string {
  let result = text;
  for (const pattern of SECRET_PATTERNS) result = result.replace(pattern, REDACTED);
  return result.replace(SECRET_ASSIGNMENT, (_match, key: string, separator: string) => `${key}${separator}${REDACTED}`);
}

/** Redacts every string field of a record (one level deep is all node runs have). */
export function redactFields<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, typeof value === 'string' ? redact(value) : value])) as T;
}
