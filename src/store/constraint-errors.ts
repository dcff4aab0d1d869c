// Recognises constraint violations whichever dialect raised them, so callers can turn a database
// refusal (a duplicate name, a reference to nothing) into a clear error.

const UNIQUE_VIOLATION_CODES = new Set(['23505', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);
const FOREIGN_KEY_VIOLATION_CODES = new Set(['23503', 'SQLITE_CONSTRAINT_FOREIGNKEY']);

export function isUniqueViolation(error: unknown): boolean {
  return UNIQUE_VIOLATION_CODES.has(errorCode(error));
}

export function isForeignKeyViolation(error: unknown): boolean {
  return FOREIGN_KEY_VIOLATION_CODES.has(errorCode(error));
}

/** Any constraint the store enforces (not null, unique, foreign key, check): retrying the same write cannot succeed. */
export function isConstraintViolation(error: unknown): boolean {
  const code = errorCode(error);
  return code.startsWith('SQLITE_CONSTRAINT') || /^23[0-9A-Z]{3}$/.test(code);
}

/** pg errors carry the SQLSTATE in `code`; better-sqlite3 errors carry the extended result code name. */
function errorCode(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : '';
}
