// Entity ids: a readable prefix and 12 random lowercase base36 characters, e.g. loop_k3j9x0q2m1ab.
import { randomInt } from 'node:crypto';

const BASE36_DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 12;

/** A bounded list of ids per query: both dialects cap the parameters of one statement. */
const ID_BATCH = 500;

/** What `find` returns for each batch of `ids`, all together. */
export async function inIdBatches<T>(ids: readonly string[], find: (batch: string[]) => Promise<T[]>): Promise<T[]> {
  const found: T[] = [];
  for (let start = 0; start < ids.length; start += ID_BATCH) found.push(...(await find(ids.slice(start, start + ID_BATCH))));
  return found;
}

export function newId(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) suffix += BASE36_DIGITS[randomInt(BASE36_DIGITS.length)];
  return `${prefix}_${suffix}`;
}
