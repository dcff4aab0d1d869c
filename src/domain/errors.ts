// Errors every layer raises and every interface (CLI, MCP) turns into a clear refusal.
import type { z } from 'zod';

/** One problem with the input: the field it is in and what to change. */
export interface Issue {
  field: string;
  message: string;
}

export type ErrorCode = 'invalid_input' | 'not_found' | 'conflict' | 'refused';

export class CanopyError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues: Issue[] = [],
  ) {
    super(issues.length ? `${message}\n${issues.map((i) => `  - ${i.field}: ${i.message}`).join('\n')}` : message);
    this.name = 'CanopyError';
  }
}

/** Whether `error` or an error in its chain of causes passes `test`; drivers and SDKs wrap the error that says what happened. */
export function hasCause(error: unknown, test: (cause: Error & { code?: unknown }) => boolean): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (test(cause)) return true;
  }
  return false;
}

export function invalidInput(what: string, issues: Issue[]): CanopyError {
  return new CanopyError('invalid_input', `${what} is invalid; nothing was changed.`, issues);
}

export function notFound(entity: string, id: string, hint?: string): CanopyError {
  return new CanopyError('not_found', `No ${entity} with id '${id}'.${hint ? ' ' + hint : ''}`);
}

export function issuesFromZod(error: z.ZodError, prefix = ''): Issue[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const field = [prefix, path].filter(Boolean).join('.') || prefix || '(input)';
    return { field, message: issue.message };
  });
}

/** Parses with a zod schema or throws a CanopyError naming each bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string, prefix = ''): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidInput(what, issuesFromZod(result.error, prefix));
  return result.data;
}
