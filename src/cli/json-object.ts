// A JSON object a person typed, on the command line or in the terminal app, refused field by field otherwise.
import { invalidInput } from '../domain/errors';

/**
 * `text` as a JSON object, or an invalid-input error of `subject` naming `field`; `syntaxHint`
 * follows the parser's message when the text is not JSON at all.
 */
export function parseJsonObject(text: string, refusal: { subject: string; field: string; syntaxHint?: string }): Record<string, unknown> {
  const refuse = (message: string) => invalidInput(refusal.subject, [{ field: refusal.field, message }]);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw refuse(`is not valid JSON (${(error as Error).message})${refusal.syntaxHint ? `; ${refusal.syntaxHint}` : ''}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw refuse('must be a JSON object ({ … })');
  return value as Record<string, unknown>;
}
