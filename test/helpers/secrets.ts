// Secrets for redaction tests: what a leaky tool prints, and the pieces of it that must never show.
import { EXCERPT_LIMIT } from '../../src/graph/feedback';

const PEM_LINES = Array.from({ length: 12 }, (_, i) => `MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC${i}abcdefgh`);
export const PEM_BODY = PEM_LINES.join('\n');
export const PEM = `-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY}\n-----END RSA PRIVATE KEY-----`;
export const ANTHROPIC_KEY = 'sk-ant-api03-Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fE9dC8bA7zY6xW5vU4tS3rQ2pO1nM0lK9jI8hG7fE6dC5bA4-Q1w2E3r4AA';

/** One secret of each kind the issue found unredacted or leaking through a cut. */
export const LEAKS = {
  anthropic: ANTHROPIC_KEY,
  basic: 'Authorization: Basic dXNlcjpodW50ZXIyaHVudGVyMg==',
  stripe: 'sk_live_51HqLyjWDarjtT1zdp7dcXyZ',
  huggingface: 'hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345',
  npm: 'npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
  gitlab: 'glpat-xXyYzZ0123456789abcd',
  url: 'postgres://canopy:s3cr3t-pw-in-url@db.internal:5432/canopy',
};

/** Distinctive substrings of the secrets above: none may appear anywhere output leaves canopy. */
export const SECRET_PIECES = [
  ...PEM_LINES.map((line) => line.slice(-24)),
  ANTHROPIC_KEY.slice(14, 34),
  ANTHROPIC_KEY.slice(-20),
  'dXNlcjpodW50ZXIy',
  '51HqLyjWDarjtT1zdp7dc',
  'AbCdEfGhIjKlMnOpQrStUvWx',
  'a1B2c3D4e5F6g7H8i9J0',
  'xXyYzZ0123456789abcd',
  's3cr3t-pw-in-url',
];

/**
 * Output long enough to be cut, holding every secret above, with the PEM block straddling the end
 * of the excerpt's head and the Anthropic key the start of its tail.
 */
export function leakyOutput(): string {
  const kept = Math.floor(EXCERPT_LIMIT / 2) - 20;
  const others = Object.entries(LEAKS)
    .filter(([kind]) => kind !== 'anthropic')
    .map(([, leak]) => leak);
  const tail = `${'-'.repeat(kept - 60)}\nend of output\n`;
  return ['start', '.'.repeat(60), PEM, ...Array<string>(100).fill('filler'), ...others, ANTHROPIC_KEY, tail].join('\n');
}
