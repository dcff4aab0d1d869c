// Reading CLI output that is JSON: one document, or one event per line among other lines.
type Json = Record<string, unknown>;

export function jsonLines(text: string): Json[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Json];
      } catch {
        return [];
      }
    });
}

/** The last JSON document in the text (pretty-printed output spans lines, so it is found from its last opening brace at column 0). */
export function lastJsonDocument(text: string): Json | null {
  const start = text.lastIndexOf('\n{') + 1;
  try {
    return JSON.parse(text.slice(start)) as Json;
  } catch {
    return null;
  }
}

export function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
