// Conversions between domain values and portable column values, shared by every table mapper:
// JSON is stored as text, booleans as integer 0/1 and timestamps as ISO-8601 text, so SQLite and
// PostgreSQL hold the same values.

export function toJson(value: unknown): string {
  return JSON.stringify(value);
}

/** The store only reads back JSON it wrote itself, after the domain schemas validated it. */
export function fromJson<T>(text: string): T {
  return JSON.parse(text) as T;
}

export function toFlag(value: boolean): number {
  return value ? 1 : 0;
}

export function fromFlag(value: number): boolean {
  return value !== 0;
}

/** Converts a value, passing through undefined (in an update: leave the column alone) and null. */
export function mapPresent<V, R>(value: V, convert: (value: NonNullable<V>) => R): R | Extract<V, null | undefined> {
  return value === undefined || value === null ? (value as Extract<V, null | undefined>) : convert(value);
}

/** Keeps the fields whose column held a value, for domain types that mark them optional rather than nullable. */
export function presentFields<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: NonNullable<T[K]> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null && value !== undefined)) as {
    [K in keyof T]?: NonNullable<T[K]>;
  };
}

export function now(): string {
  return new Date().toISOString();
}
