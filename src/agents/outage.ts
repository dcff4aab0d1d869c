// What every CLI prints, in its own words, when it could not reach its provider at all.

/** A refused or dropped connection, as Node's fetch, Rust's reqwest and the CLIs' own messages say it. */
export const CONNECTION_FAILURE =
  /[^\n]*\b(?:ECONNREFUSED|ECONNRESET|Connection refused|Connection error|fetch failed|error sending request)\b[^\n]*/i;

/** The first match of the first pattern that matches, trimmed. */
export function firstMatch(text: string, patterns: RegExp[]): string | null {
  for (const pattern of patterns) {
    const hit = pattern.exec(text);
    if (hit) return hit[0].trim();
  }
  return null;
}
